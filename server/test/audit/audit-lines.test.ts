import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/db/transact';
import { recordAudit, redact } from '../../src/domain/audit/record';
import { DASHBOARD_ORIGIN_HEADER, dashboardOriginKey } from '../../src/http/origin';
import { hmacSha256 } from '../../src/lib/crypto';
import { type ClaimStore, claimStore } from '../harness/claims';
import { addMember, pageSession } from '../harness/dashboard';
import { answered, createApp, dashboardTokenFor, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The audit log's lines (D53): each audited act writes one line in its own transaction, with
 * who, what, on what, when and from where; a change refused or rolled back writes none; the
 * dashboard's word for the browser is believed only when signed by this server.
 */
describe('audit lines (D53)', () => {
  let server: TestServer;
  let s: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'audit-lines');
  });
  afterAll(async () => {
    await server.close();
  });

  const lines = (storeId = s.owner.store.id) =>
    server.db.selectFrom('auditEvents').selectAll().where('storeId', '=', storeId).orderBy('at').execute() as Promise<
      Record<string, any>[]
    >;
  const lastOf = async (action: string, storeId = s.owner.store.id) =>
    (await lines(storeId)).filter((l) => l.action === action).at(-1);

  const newClaim = async (n: string) => {
    await s.putOrder(`audit-${n}`);
    return s.fileId(`audit-${n}`);
  };

  it('records claim decisions, moves and notes with the app as actor and the caller address', async () => {
    const approved = await newClaim('approve');
    const ua = { 'user-agent': 'audit-test-agent/1.0' };
    expect((await s.post(`/v1/claims/${approved}/approve`, { resolutions: [{ type: 'RESHIP' }] }, ua)).status).toBe(
      200,
    );
    const line = await lastOf('claim.approved');
    expect(line).toMatchObject({
      actorType: 'app',
      actorId: s.clientId,
      targetType: 'claim',
      targetId: approved,
      userAgent: 'audit-test-agent/1.0',
      changes: { before: { claimState: 'NEW' }, after: { claimState: 'APPROVED' } },
    });
    expect(line!.ip).toMatch(/127\.0\.0\.1|::1/);
    expect(line!.requestId).toBeTruthy();
    expect(Math.abs(new Date(line!.at).getTime() - Date.now())).toBeLessThan(60_000);

    const denied = await newClaim('deny');
    expect((await s.post(`/v1/claims/${denied}/deny`, { reason: 'NOT_COVERED' })).status).toBe(200);
    expect(await lastOf('claim.denied')).toMatchObject({ targetId: denied });

    const moved = await newClaim('move');
    expect((await s.post(`/v1/claims/${moved}/transition`, { claimState: 'OPEN' })).status).toBe(200);
    expect(await lastOf('claim.moved')).toMatchObject({ targetId: moved, changes: { after: { claimState: 'OPEN' } } });

    expect((await s.post(`/v1/claims/${moved}/notes`, { note: 'card 4111 1111 1111 1111' })).status).toBe(201);
    const note = await lastOf('claim.note_added');
    expect(note).toMatchObject({ targetId: moved });
    // D53: the note's words are not in the log.
    expect(JSON.stringify(note!.changes)).not.toContain('4111');
  });

  it('writes nothing for a refused change (409) and nothing for a rolled-back one', async () => {
    const claimId = await newClaim('refused');
    expect((await s.post(`/v1/claims/${claimId}/deny`, { reason: 'NOT_COVERED' })).status).toBe(200);
    const before = (await lines()).length;
    expect((await s.post(`/v1/claims/${claimId}/deny`, { reason: 'NOT_COVERED' })).status).toBe(409);
    expect((await s.post(`/v1/claims/${claimId}/transition`, { claimState: 'OPEN' })).status).toBe(409);
    await expect(
      transact(server.db, async (trx) => {
        await recordAudit(trx, {
          store: s.owner.store.id,
          actor: { type: 'app', id: s.clientId },
          action: 'claim.moved',
          target: { type: 'claim', id: claimId },
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await lines()).length).toBe(before);
  });

  it('records settings and pricing changes with before and after, as the user or app who made them', async () => {
    const admin = await addMember(server, s.owner.store.id, 'admin');
    const dash = await dashboardTokenFor(server, admin.userId);
    answered(
      await server.api(dash).stores.updateSettings({
        params: { storeId: s.owner.store.id },
        body: { storeCreditMaxPercentage: 77 },
      }),
      200,
    );
    const settings = await lastOf('settings.updated');
    expect(settings).toMatchObject({
      actorType: 'user',
      actorId: admin.userId,
      actorEmail: admin.email,
      targetType: 'settings',
      changes: { after: { storeCreditMaxPercentage: 77 } },
    });
    expect(Object.keys(settings!.changes.after)).toEqual(['storeCreditMaxPercentage']);

    const installation = await server.db
      .selectFrom('installations')
      .select('scopes')
      .where('clientId', '=', s.clientId)
      .executeTakeFirstOrThrow();
    await server.db
      .updateTable('installations')
      .set({ scopes: [...installation.scopes, 'pricing:shipping-insurance:update'] })
      .where('clientId', '=', s.clientId)
      .execute();
    const ruleSet = await server.db
      .selectFrom('pricingRuleSets')
      .select('id')
      .where('storeId', '=', s.owner.store.id)
      .where('type', '=', 'SHIPPING')
      .executeTakeFirstOrThrow();
    const pricing = await installWithToken(server, s.clientId, s.owner.store.id, ['pricing:shipping-insurance:update']);
    answered(
      await server.api(pricing.accessToken).pricing.update({
        params: { ruleSetId: ruleSet.id },
        body: { automaticallyAddToCart: true },
      }),
      200,
    );
    const line = await lastOf('pricing.updated');
    expect(line).toMatchObject({ actorType: 'app', actorId: s.clientId, targetId: ruleSet.id });
    expect(line!.changes.before.automaticallyAddToCart).toBe(false);
    expect(line!.changes.after.automaticallyAddToCart).toBe(true);
  });

  it('records installs and uninstalls by the user', async () => {
    const dash = await dashboardTokenFor(server, s.owner.user.id);
    const app = await createApp(server, s.owner.user.id, { requestedScopes: ['order:read'] });
    answered(
      await server.api(dash).oauth.approve({
        body: {
          clientId: app.clientId,
          redirectUri: 'https://app.example.com/callback',
          storeId: s.owner.store.id,
          codeChallenge: 'x'.repeat(43),
          codeChallengeMethod: 'S256',
        },
      }),
      200,
    );
    expect(await lastOf('app.installed')).toMatchObject({
      actorType: 'user',
      actorId: s.owner.user.id,
      targetType: 'app',
      targetId: app.clientId,
    });
    answered(
      await server.api(dash).stores.uninstall({ params: { storeId: s.owner.store.id, clientId: app.clientId } }),
      200,
    );
    expect(await lastOf('app.uninstalled')).toMatchObject({ actorId: s.owner.user.id, targetId: app.clientId });
  });

  it("records sign-ins and password changes on each of the user's stores, never the password", async () => {
    const other = await claimStore(server, 'audit-lines-other');
    const agent = await addMember(server, s.owner.store.id, 'agent');
    await server.db
      .insertInto('storeMembers')
      .values({ storeId: other.owner.store.id, userId: agent.userId, role: 'viewer' })
      .execute();
    answered(await server.api().auth.login({ body: { email: agent.email, password: agent.password } }), 200);
    for (const store of [s.owner.store.id, other.owner.store.id]) {
      expect(await lastOf('user.signed_in', store)).toMatchObject({ actorId: agent.userId, actorEmail: agent.email });
    }
    await pageSession(server, agent);
    expect((await lines()).filter((l) => l.action === 'user.signed_in' && l.actorId === agent.userId)).toHaveLength(2);

    const dash = await dashboardTokenFor(server, agent.userId);
    const newPassword = `new-${agent.password}`;
    answered(
      await server.api(dash).auth.changePassword({ body: { currentPassword: agent.password, newPassword } }),
      200,
    );
    const line = await lastOf('user.password_changed', other.owner.store.id);
    expect(line).toMatchObject({ actorId: agent.userId, targetType: 'user', targetId: agent.userId });
    expect(JSON.stringify(await lines())).not.toContain(newPassword);
  });

  it('redacts card-like numbers and secrets in changes', () => {
    expect(
      redact({
        note: 'pay with 4111-1111-1111-1111 or 4111111111111111, order #1001',
        password: 'hunter2',
        nested: [{ clientSecret: 'abc', amount: 12.5 }],
      }),
    ).toEqual({
      note: 'pay with [redacted] or [redacted], order #1001',
      password: '[redacted]',
      nested: [{ clientSecret: '[redacted]', amount: 12.5 }],
    });
  });

  describe("the dashboard's word for the browser (D53)", () => {
    const move = async (headers: Record<string, string>) => {
      const claimId = await newClaim(`vouch-${Math.random().toString(36).slice(2)}`);
      const res = await s.post(`/v1/claims/${claimId}/transition`, { claimState: 'OPEN' }, headers);
      expect(res.status).toBe(200);
      return (await lines()).find((l) => l.targetId === claimId && l.action === 'claim.moved')!;
    };
    const header = (key: Buffer, requestId: string, ip = '203.0.113.9', ua = 'Forged/1.0') => {
      const at = Date.now();
      const payload = Buffer.from(JSON.stringify([at, ip, ua])).toString('base64url');
      return `${payload}.${hmacSha256(key, JSON.stringify([at, ip, ua, requestId])).toString('base64url')}`;
    };

    it('believes a header signed with the server key for this very request', async () => {
      const key = dashboardOriginKey(server.config.secretKey);
      const line = await move({ 'x-request-id': 'vouched-1', [DASHBOARD_ORIGIN_HEADER]: header(key, 'vouched-1') });
      expect(line).toMatchObject({ ip: '203.0.113.9', userAgent: 'Forged/1.0', requestId: 'vouched-1' });
    });

    it('ignores a forged header: another key, another request id, or garbage', async () => {
      const key = dashboardOriginKey(server.config.secretKey);
      const forged = [
        { 'x-request-id': 'forged-1', [DASHBOARD_ORIGIN_HEADER]: header(Buffer.alloc(32, 1), 'forged-1') },
        { 'x-request-id': 'forged-2', [DASHBOARD_ORIGIN_HEADER]: header(key, 'some-other-request') },
        { 'x-request-id': 'forged-3', [DASHBOARD_ORIGIN_HEADER]: 'not.a-header' },
      ];
      for (const headers of forged) {
        const line = await move({ ...headers, 'user-agent': 'honest/1.0' });
        expect(line.ip).not.toBe('203.0.113.9');
        expect(line.userAgent).toBe('honest/1.0');
      }
    });

    it("carries the person's browser through a dashboard form", async () => {
      const claimId = await newClaim('page-note');
      const session = await pageSession(server, { email: s.owner.user.email, password: s.owner.password });
      const page = await server.request(`/dashboard/stores/${s.owner.store.id}/claims/${claimId}`, {
        headers: { cookie: session.cookie, 'user-agent': 'PersonBrowser/2.0' },
      });
      const key = /name="idempotencyKey" value="([^"]+)"/.exec(await page.text())![1]!;
      const posted = await server.request(`/dashboard/stores/${s.owner.store.id}/claims/${claimId}/note`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: session.cookie,
          origin: server.baseUrl,
          'user-agent': 'PersonBrowser/2.0',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ csrf: session.csrf, idempotencyKey: key, note: 'from the page' }),
      });
      expect(posted.status).toBe(303);
      const line = await lastOf('claim.note_added');
      expect(line).toMatchObject({
        targetId: claimId,
        actorType: 'user',
        actorId: s.owner.user.id,
        userAgent: 'PersonBrowser/2.0',
      });
    });
  });

  describe('GET /v1/stores/:storeId/audit-events', () => {
    const listAs = async (userId: string, query: Record<string, unknown> = {}, storeId = s.owner.store.id) =>
      server.api(await dashboardTokenFor(server, userId)).stores.listAuditEvents({ params: { storeId }, query });

    it('lists every audited act newest first with actor, target, time and address, to the owner and admins', async () => {
      const page = answered(await listAs(s.owner.user.id, { first: 250 }), 200).data;
      const nodes = page.edges.map((e) => e.node);
      const actions = new Set(nodes.map((n) => n.action));
      for (const action of [
        'claim.approved',
        'claim.denied',
        'claim.moved',
        'claim.note_added',
        'settings.updated',
        'pricing.updated',
        'app.installed',
        'app.uninstalled',
        'user.signed_in',
        'user.password_changed',
      ]) {
        expect(actions, action).toContain(action);
      }
      for (const n of nodes) {
        expect(n.actor.id).toBeTruthy();
        expect(n.target.id).toBeTruthy();
        expect(n.ip).toBeTruthy();
        expect(Number.isNaN(Date.parse(n.at))).toBe(false);
      }
      const times = nodes.map((n) => Date.parse(n.at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const admin = await addMember(server, s.owner.store.id, 'admin');
      expect((await listAs(admin.userId)).status).toBe(200);
    });

    it('pages by keyset and filters by actor, action and time', async () => {
      const all = answered(await listAs(s.owner.user.id, { first: 250 }), 200).data.edges.map((e) => e.node.id);
      const first = answered(await listAs(s.owner.user.id, { first: 3 }), 200).data;
      expect(first.pageInfo.hasNextPage).toBe(true);
      const next = answered(await listAs(s.owner.user.id, { first: 3, after: first.pageInfo.endCursor }), 200).data;
      expect([...first.edges, ...next.edges].map((e) => e.node.id)).toEqual(all.slice(0, 6));

      const approved = answered(await listAs(s.owner.user.id, { action: 'claim.approved' }), 200).data.edges;
      expect(approved.length).toBeGreaterThan(0);
      expect(approved.every((e) => e.node.action === 'claim.approved')).toBe(true);
      const byApp = answered(await listAs(s.owner.user.id, { actor: s.clientId, first: 250 }), 200).data.edges;
      expect(byApp.every((e) => e.node.actor.id === s.clientId)).toBe(true);
      const byEmail = answered(await listAs(s.owner.user.id, { actor: s.owner.user.email, first: 250 }), 200).data
        .edges;
      expect(byEmail.length).toBeGreaterThan(0);
      expect(byEmail.every((e) => e.node.actor.id === s.owner.user.id)).toBe(true);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      expect(answered(await listAs(s.owner.user.id, { createdAtMin: future }), 200).data.edges).toEqual([]);
      expect(answered(await listAs(s.owner.user.id, { createdAtMax: '2000-01-01T00:00:00Z' }), 200).data.edges).toEqual(
        [],
      );
      // A cursor of one filter is not a cursor of another (D24): 400, not another list's page.
      const res = await listAs(s.owner.user.id, { action: 'claim.moved', after: first.pageInfo.endCursor });
      expect(res.status).toBe(400);
    });

    it('refuses agents and viewers (403) and answers a non-member as an unknown store (404, D7)', async () => {
      for (const role of ['agent', 'viewer'] as const) {
        const member = await addMember(server, s.owner.store.id, role);
        expect((await listAs(member.userId)).status, role).toBe(403);
      }
      const stranger = await claimStore(server, 'audit-stranger');
      const res = await listAs(stranger.owner.user.id);
      expect(res.status).toBe(404);
      expect((await listAs(stranger.owner.user.id, {}, 'store_unknown')).status).toBe(404);
    });
  });
});

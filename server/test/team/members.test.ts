import { randomBytes } from 'node:crypto';
import type { Role } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/domain/identity/users';
import type { Delivery } from '../../src/job-runner';
import { CLAIM_TEST_SCOPES, type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { answered, bearer, createOwner, dashboardTokenFor, type Owner } from '../harness/fixtures';
import { type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D53: a store's team through the API: who may read and change it (D49 roles, D7 for
 * strangers), admins never touching owners, the last owner kept, staff tokens ended by a
 * removal, the invitation e-mail with its single-use 7-day link, and merchant notices, all
 * received on a real SMTP server.
 */
describe('team members (D53)', () => {
  let server: TestServer;
  let sink: SmtpSink;
  let delivery: Delivery;
  let owner: Owner;
  let ownerDash: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    sink = await startSmtpSink();
    ({ delivery } = await startMailRunner(server, { smtpUrl: sink.url, mailFrom: 'team@shop.test' }));
    owner = await createOwner(server.db, `team-${randomBytes(3).toString('hex')}`);
    ownerDash = await dashboardTokenFor(server, owner.user.id);
  });
  afterAll(async () => {
    await delivery?.stop();
    await sink?.close();
    await server?.close();
  });

  async function member(role: Role, storeId = owner.store.id) {
    const user = await createUser(server.db, {
      email: `${role}-${randomBytes(4).toString('hex')}@example.com`,
      password: 'a long enough password',
      storeIds: [storeId],
      role,
    });
    return { user, dash: await dashboardTokenFor(server, user.id) };
  }

  const members = (dash: string) => server.api(dash).members;
  const arrivals = (email: string, count: number) =>
    expect.poll(() => sink.to(email).length, { timeout: 15_000, interval: 100 }).toBe(count);
  const linkIn = (email: string, n = 0) => {
    const text = sink.to(email)[n]!.mail.text ?? '';
    return /https?:\/\/\S+\/dashboard\/invitations\/\S+/.exec(text)?.[0] ?? '';
  };

  it('any member reads the team; a stranger gets 404 as for a missing store (D7)', async () => {
    const viewer = await member('viewer');
    const list = answered(await members(viewer.dash).list({ params: { storeId: owner.store.id } }), 200).data;
    expect(list.map((m) => m.id)).toContain(owner.user.id);
    expect(list.find((m) => m.id === owner.user.id)).toMatchObject({
      email: owner.user.email,
      role: 'owner',
      status: 'active',
      notices: { claimFiled: false, shopperReplied: false },
    });
    const stranger = await createOwner(server.db, `stranger-${randomBytes(3).toString('hex')}`);
    const strangerDash = await dashboardTokenFor(server, stranger.user.id);
    const res = await members(strangerDash).list({ params: { storeId: owner.store.id } });
    expect(res.status).toBe(404);
    const invite = await members(strangerDash).invite({
      params: { storeId: owner.store.id },
      body: { email: 'x@example.com', role: 'viewer' },
    });
    expect(invite.status).toBe(404);
  });

  it('agents and viewers may not invite, change or remove anyone (403)', async () => {
    const target = await member('viewer');
    for (const role of ['agent', 'viewer'] as const) {
      const { dash } = await member(role);
      const api = members(dash);
      const params = { storeId: owner.store.id };
      expect((await api.invite({ params, body: { email: `n-${role}@example.com`, role: 'viewer' } })).status).toBe(403);
      expect(
        (await api.update({ params: { ...params, userId: target.user.id }, body: { role: 'agent' } })).status,
      ).toBe(403);
      expect((await api.remove({ params: { ...params, userId: target.user.id } })).status).toBe(403);
    }
  });

  it('an admin changes agents and viewers but never an owner, nor makes anyone owner (403)', async () => {
    const admin = await member('admin');
    const agent = await member('agent');
    const params = { storeId: owner.store.id };
    const api = members(admin.dash);
    const changed = answered(
      await api.update({ params: { ...params, userId: agent.user.id }, body: { role: 'viewer' } }),
      200,
    );
    expect(changed.data).toMatchObject({ id: agent.user.id, role: 'viewer', status: 'active' });
    expect((await api.update({ params: { ...params, userId: agent.user.id }, body: { role: 'owner' } })).status).toBe(
      403,
    );
    expect((await api.update({ params: { ...params, userId: owner.user.id }, body: { role: 'agent' } })).status).toBe(
      403,
    );
    expect((await api.remove({ params: { ...params, userId: owner.user.id } })).status).toBe(403);
    expect((await api.invite({ params, body: { email: 'new-owner@example.com', role: 'owner' } })).status).toBe(403);
    const role = await server.db
      .selectFrom('storeMembers')
      .select('role')
      .where('storeId', '=', owner.store.id)
      .where('userId', '=', owner.user.id)
      .executeTakeFirstOrThrow();
    expect(role.role).toBe('owner');
  });

  it('the last owner can be neither demoted nor removed (409); with a second owner it can', async () => {
    const solo = await createOwner(server.db, `solo-${randomBytes(3).toString('hex')}`);
    const dash = await dashboardTokenFor(server, solo.user.id);
    const params = { storeId: solo.store.id, userId: solo.user.id };
    const demoted = await members(dash).update({ params, body: { role: 'admin' } });
    expect(demoted.status).toBe(409);
    expect((await members(dash).remove({ params })).status).toBe(409);
    const second = await member('admin', solo.store.id);
    answered(
      await members(dash).update({ params: { ...params, userId: second.user.id }, body: { role: 'owner' } }),
      200,
    );
    answered(await members(dash).update({ params, body: { role: 'admin' } }), 200);
  });

  it("a removed member's staff token answers 401, and so does one of their old role", async () => {
    const agent = await member('agent');
    const viewer = await member('viewer');
    const mint = async (dash: string) =>
      answered(await server.api(dash).stores.mintStaffToken({ params: { storeId: owner.store.id } }), 200).data
        .access_token;
    const agentToken = await mint(agent.dash);
    const viewerToken = await mint(viewer.dash);
    expect((await server.request('/v1/claims', { headers: bearer(agentToken) })).status).toBe(200);
    answered(await members(ownerDash).remove({ params: { storeId: owner.store.id, userId: agent.user.id } }), 200);
    answered(
      await members(ownerDash).update({
        params: { storeId: owner.store.id, userId: viewer.user.id },
        body: { role: 'agent' },
      }),
      200,
    );
    expect((await server.request('/v1/claims', { headers: bearer(agentToken) })).status).toBe(401);
    expect((await server.request('/v1/claims', { headers: bearer(viewerToken) })).status).toBe(401);
    const list = answered(await members(ownerDash).list({ params: { storeId: owner.store.id } }), 200).data;
    expect(list.map((m) => m.id)).not.toContain(agent.user.id);
  });

  it('an invitation is e-mailed with a 7-day link; inviting again replaces it; a member already answers 409', async () => {
    const email = `invitee-${randomBytes(3).toString('hex')}@example.com`;
    const params = { storeId: owner.store.id };
    const invited = answered(await members(ownerDash).invite({ params, body: { email, role: 'agent' } }), 201).data;
    expect(invited).toMatchObject({ id: expect.stringMatching(/^inv_/), email, role: 'agent', status: 'invited' });
    const days = (Date.parse(invited.expiresAt!) - Date.parse(invited.invitedAt!)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);
    await arrivals(email, 1);
    const first = linkIn(email);
    expect(first.startsWith(`${server.config.publicBaseUrl}/dashboard/invitations/`)).toBe(true);
    expect(sink.to(email)[0]!.mail.subject).toBe(`You are invited to join ${owner.store.name}`);
    // The role in the pages' words (D50), not its code.
    expect(sink.to(email)[0]!.mail.text).toContain(`as claims agent.`);
    // The database holds no token: only the random half of the link.
    const rows = await sql<{ row: string }>`select row_to_json(i)::text as row from member_invitations i`.execute(
      server.db,
    );
    const token = first.split('/').pop()!;
    expect(rows.rows.some((r) => r.row.includes(token))).toBe(false);

    const again = answered(await members(ownerDash).invite({ params, body: { email, role: 'viewer' } }), 201).data;
    expect(again).toMatchObject({ id: invited.id, role: 'viewer' });
    await arrivals(email, 2);
    expect(linkIn(email, 1)).not.toBe(first);
    const page = await server.request(new URL(first).pathname);
    expect(page.status).toBe(404);
    expect((await server.request(new URL(linkIn(email, 1)).pathname)).status).toBe(200);

    const existing = await member('viewer');
    const dup = await members(ownerDash).invite({ params, body: { email: existing.user.email, role: 'agent' } });
    expect(dup.status).toBe(409);
    // Withdrawn: the link answers 404.
    answered(await members(ownerDash).remove({ params: { ...params, userId: invited.id } }), 200);
    expect((await server.request(new URL(linkIn(email, 1)).pathname)).status).toBe(404);
  });

  it('writes the audit line of each team change with its actor and target, and none for a refused one (D53)', async () => {
    const api = members(ownerDash);
    const params = { storeId: owner.store.id };
    const audited = async () =>
      (await server.db
        .selectFrom('auditEvents')
        .select(['action', 'actorType', 'actorId', 'targetType', 'targetId', 'changes', 'ip'])
        .where('storeId', '=', owner.store.id)
        .where('action', 'like', 'member.%')
        .orderBy('at')
        .execute()) as { action: string; targetId: string; changes: unknown; ip: string | null }[];
    const before = (await audited()).length;
    const email = `audited-${randomBytes(4).toString('hex')}@example.com`;
    const invited = answered(await api.invite({ params, body: { email, role: 'viewer' } }), 201).data;
    const agent = await member('agent');
    answered(await api.update({ params: { ...params, userId: agent.user.id }, body: { role: 'viewer' } }), 200);
    answered(await api.remove({ params: { ...params, userId: agent.user.id } }), 200);
    // Refused: the last owner stays (409), and an agent may change no one (403).
    expect((await api.update({ params: { ...params, userId: owner.user.id }, body: { role: 'agent' } })).status).toBe(
      409,
    );
    const other = await member('agent');
    expect((await members(other.dash).remove({ params: { ...params, userId: owner.user.id } })).status).toBe(403);

    const lines = (await audited()).slice(before);
    expect(lines.map((l) => l.action)).toEqual(['member.invited', 'member.role_changed', 'member.removed']);
    expect(lines[0]).toMatchObject({
      actorType: 'user',
      actorId: owner.user.id,
      targetType: 'invitation',
      targetId: invited.id,
    });
    expect(lines[0]!.changes).toEqual({ email, role: 'viewer' });
    expect(lines[1]).toMatchObject({
      targetType: 'user',
      targetId: agent.user.id,
      changes: { before: 'agent', after: 'viewer' },
    });
    expect(lines[2]).toMatchObject({ targetType: 'user', targetId: agent.user.id, changes: { role: 'viewer' } });
    for (const line of lines) expect(line.ip).toMatch(/127\.0\.0\.1|::1/);
  });

  it('an invitation whose 7 days are over answers 404 and leaves the team list', async () => {
    const email = `late-${randomBytes(3).toString('hex')}@example.com`;
    const params = { storeId: owner.store.id };
    const invited = answered(await members(ownerDash).invite({ params, body: { email, role: 'agent' } }), 201).data;
    await arrivals(email, 1);
    const path = new URL(linkIn(email)).pathname;
    expect((await server.request(path)).status).toBe(200);
    await sql`update member_invitations set expires_at = now() - interval '1 second' where id = ${invited.id}`.execute(
      server.db,
    );
    expect((await server.request(path)).status).toBe(404);
    const list = answered(await members(ownerDash).list({ params }), 200).data;
    expect(list.map((m) => m.id)).not.toContain(invited.id);
  });

  describe('merchant notices', () => {
    let s: ClaimStore;
    let agent: { user: { id: string; email: string }; dash: string };
    let n = 0;

    beforeAll(async () => {
      s = await claimStore(server, 'notices', [...CLAIM_TEST_SCOPES]);
      agent = await member('agent', s.owner.store.id);
    });

    async function file() {
      const sourceOrderId = `o-notice-${++n}`;
      await s.putOrder(sourceOrderId, { sourceOrderNumber: `#N${n}` });
      return { claimId: await s.fileId(sourceOrderId, claimBody({ email: `shopper-n${n}@example.com` })), n };
    }

    it("a member sets their own notices, never another's (403)", async () => {
      const params = { storeId: s.owner.store.id, userId: agent.user.id };
      const set = answered(
        await members(agent.dash).update({ params, body: { notices: { claimFiled: true, shopperReplied: true } } }),
        200,
      );
      expect(set.data.notices).toEqual({ claimFiled: true, shopperReplied: true });
      const ownerDashOfS = await dashboardTokenFor(server, s.owner.user.id);
      const other = await members(ownerDashOfS).update({ params, body: { notices: { claimFiled: false } } });
      expect(other.status).toBe(403);
    });

    it('a filed claim and a shopper reply e-mail the members who asked, with the dashboard link', async () => {
      const { claimId, n: order } = await file();
      await arrivals(agent.user.email, 1);
      const notice = sink.to(agent.user.email)[0]!.mail;
      expect(notice.subject).toBe(`New claim for order #N${order}`);
      const link = `${server.config.publicBaseUrl}/dashboard/stores/${s.owner.store.id}/claims/${claimId}`;
      expect(notice.text).toContain(link);
      expect(notice.html).toContain(`href="${link}"`);
      // The owner did not ask: nothing for them.
      expect(sink.to(s.owner.user.email)).toHaveLength(0);

      answered(
        await s.api.claims.postMessage({
          params: { claimId },
          body: { message: 'Still waiting', senderType: 'customer' },
        }),
        200,
      );
      await arrivals(agent.user.email, 2);
      expect(sink.to(agent.user.email)[1]!.mail.subject).toBe(`The shopper replied on the claim for order #N${order}`);
      // The store's own reply tells no one.
      answered(
        await s.api.claims.postMessage({ params: { claimId }, body: { message: 'On it', senderType: 'brand' } }),
        200,
      );
      answered(
        await members(agent.dash).update({
          params: { storeId: s.owner.store.id, userId: agent.user.id },
          body: { notices: { claimFiled: false } },
        }),
        200,
      );
      await file();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(sink.to(agent.user.email)).toHaveLength(2);
    });

    it('a filing that rolls back writes no notice', async () => {
      const before = await server.db
        .selectFrom('mailMessages')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('kind', '=', 'notice_claim_filed')
        .executeTakeFirstOrThrow();
      // An order that does not exist: the claim statement writes nothing (404).
      const res = await s.api.claims.file({ params: { sourceOrderId: 'o-none' }, body: claimBody({}) });
      expect(res.status).toBe(404);
      const after = await server.db
        .selectFrom('mailMessages')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('kind', '=', 'notice_claim_filed')
        .executeTakeFirstOrThrow();
      expect(after.n).toBe(before.n);
    });
  });
});

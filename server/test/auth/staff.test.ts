import { randomBytes } from 'node:crypto';
import { ROLE_SCOPES, type Role, SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endBrowserSession, startBrowserSession } from '../../src/domain/auth/browser-sessions';
import { changeMemberRole, LAST_OWNER, removeMember } from '../../src/domain/auth/staff';
import { issueDashboardToken, tokenKeys } from '../../src/domain/auth/tokens';
import { createUser } from '../../src/domain/identity/users';
import { APP_ONLY } from '../../src/http/caller';
import { Refusal } from '../../src/lib/refusal';
import { claimBody, claimStore, orderBody } from '../harness/claims';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  createTestStoreOf,
  dashboardTokenFor,
  errorOf,
  type Owner,
  withinOneRateWindow,
} from '../harness/fixtures';
import { startSecondServer, startTestServer, type TestServer } from '../harness/server';

/**
 * D49: roles on memberships, staff tokens minted from a dashboard session, the person as the
 * actor of what they change, the last owner kept, and role changes, removals, sign-outs and
 * password changes ending staff tokens within a second on every process.
 */
describe('staff (D49)', () => {
  let server: TestServer;
  let owner: Owner;
  let ownerDash: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    owner = await createOwner(server.db, `staff-${randomBytes(3).toString('hex')}`);
    ownerDash = await dashboardTokenFor(server, owner.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  /** A new member of the owner's store (or `storeId`) with `role`, and a dashboard token of theirs. */
  async function member(role: Role, storeId = owner.store.id) {
    const user = await createUser(server.db, {
      email: `${role}-${randomBytes(4).toString('hex')}@example.com`,
      password: 'a long enough password',
      storeIds: [storeId],
      role,
    });
    return { user, dash: await dashboardTokenFor(server, user.id) };
  }

  async function staffToken(dash: string, storeId = owner.store.id) {
    return answered(await server.api(dash).stores.mintStaffToken({ params: { storeId } }), 200).data;
  }

  const get = (token: string, path: string) => server.request(path, { headers: bearer(token) });

  describe('minting', () => {
    it("answers a svc_at_ token of at most 5 minutes with the role's scopes, never cached", async () => {
      for (const role of ['owner', 'admin', 'agent', 'viewer'] as const) {
        const { dash } = await member(role);
        const res = await server.request(`/v1/stores/${owner.store.id}/staff-tokens`, {
          method: 'POST',
          headers: bearer(dash),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const { data } = await res.json();
        expect(data.access_token).toMatch(/^svc_at_/);
        expect(data.access_token).not.toMatch(/^svc_at_test_/);
        expect(data.token_type).toBe('Bearer');
        expect(data.expires_in).toBeGreaterThan(0);
        expect(data.expires_in).toBeLessThanOrEqual(300);
        expect(data.scope.split(' ').sort()).toEqual([...ROLE_SCOPES[role]].sort());
      }
    });

    it('gives owner and admin every scope but partner-context:update', () => {
      for (const role of ['owner', 'admin'] as const) {
        expect([...ROLE_SCOPES[role]].sort()).toEqual(SCOPES.filter((s) => s !== 'partner-context:update').sort());
      }
    });

    it("answers a non-member's store exactly as an unknown store (404, D7)", async () => {
      const stranger = await createOwner(server.db, `stranger-${randomBytes(3).toString('hex')}`);
      const strangerDash = await dashboardTokenFor(server, stranger.user.id);
      const foreign = await server.request(`/v1/stores/${owner.store.id}/staff-tokens`, {
        method: 'POST',
        headers: bearer(strangerDash),
      });
      const unknown = await server.request('/v1/stores/st_unknown/staff-tokens', {
        method: 'POST',
        headers: bearer(strangerDash),
      });
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(await foreign.json()).toEqual(await unknown.json());
    });

    it('refuses an app access token and no token (401)', async () => {
      const s = await claimStore(server, `mint-${randomBytes(3).toString('hex')}`);
      for (const headers of [bearer(s.token), {}]) {
        const res = await server.request(`/v1/stores/${s.owner.store.id}/staff-tokens`, { method: 'POST', headers });
        expect(res.status).toBe(401);
        expect((await errorOf(res)).statusCode).toBe(401);
      }
    });

    it("mints a test token (svc_at_test_) on a test store, which a live store's token cannot reach (D45)", async () => {
      const app = await createApp(server, owner.user.id, { name: 'Staff test-mode app' });
      const testStore = await createTestStoreOf(server, owner.user.id, app.clientId);
      const { access_token } = await staffToken(ownerDash, testStore.id);
      expect(access_token).toMatch(/^svc_at_test_/);
      expect((await get(access_token, '/v2/settings')).status).toBe(200);
      expect((await get(access_token, '/v1/test_helpers/mail')).status).toBe(200);
      const { access_token: live } = await staffToken(ownerDash);
      expect((await get(live, '/v1/test_helpers/mail')).status).toBe(403);
    });
  });

  describe('scopes', () => {
    it('each role reaches what its scopes allow and is refused the rest by the same checks (403)', async () => {
      const s = await claimStore(server, `scopes-${randomBytes(3).toString('hex')}`);
      await s.putOrder('o-scope');
      const claimId = await s.fileId('o-scope');
      const tokens: Record<Role, string> = {} as never;
      for (const role of ['owner', 'admin', 'agent', 'viewer'] as const) {
        const { user } = await member(role, s.owner.store.id);
        tokens[role] = (await staffToken(await dashboardTokenFor(server, user.id), s.owner.store.id)).access_token;
      }
      const put = (token: string) =>
        server.request('/v1/orders/o-scope-2', { method: 'PUT', headers: bearer(token), json: orderBody() });
      const move = (token: string) =>
        server.request(`/v1/claims/${claimId}/transition`, {
          method: 'POST',
          headers: bearer(token),
          json: { claimState: 'OPEN' },
        });
      expect((await get(tokens.viewer, `/v1/claims/${claimId}`)).status).toBe(200);
      expect((await get(tokens.viewer, '/v1/orders/o-scope')).status).toBe(200);
      expect((await get(tokens.viewer, '/v2/settings')).status).toBe(200);
      const refusedMove = await move(tokens.viewer);
      expect(refusedMove.status).toBe(403);
      expect(refusedMove.headers.get('www-authenticate')).toContain('insufficient_scope');
      expect((await put(tokens.viewer)).status).toBe(403);
      expect((await put(tokens.agent)).status).toBe(403);
      expect((await get(tokens.agent, '/v2/pricing/rules')).status).toBe(403);
      expect((await move(tokens.agent)).status).toBe(200);
      expect((await put(tokens.admin)).status).toBe(200);
      expect((await get(tokens.owner, '/v2/pricing/rules')).status).toBe(200);
      // Nobody's role holds partner-context:update.
      const create = await server.request('/v2/settings/context', {
        method: 'POST',
        headers: bearer(tokens.owner),
        json: { name: 'Mine' },
      });
      expect(create.status).toBe(403);
    });

    it("refuses a staff token on an app's own partner context and cohorts with a clear 403 (D2 shape)", async () => {
      const { access_token } = await staffToken(ownerDash);
      for (const path of [
        '/v2/settings/context',
        '/v2/settings/context/ctx_anything',
        '/v2/settings/context/ctx_anything/pricing',
      ]) {
        const res = await get(access_token, path);
        expect(res.status, path).toBe(403);
        expect(await errorOf(res)).toMatchObject({ statusCode: 403, error: 'Forbidden', message: APP_ONLY });
      }
    });
  });

  describe('the person as the actor', () => {
    it('claim moves and resolutions record the user; an app keeps its client id', async () => {
      const s = await claimStore(server, `actor-${randomBytes(3).toString('hex')}`);
      const { user } = await member('agent', s.owner.store.id);
      const agent = (await staffToken(await dashboardTokenFor(server, user.id), s.owner.store.id)).access_token;
      await s.putOrder('o-actor');
      const byStaff = await s.fileId('o-actor');
      const byApp = await s.fileId('o-actor');
      const staffApi = server.api(agent);
      answered(
        await staffApi.claims.transition({ params: { claimId: byStaff }, body: { claimState: 'OPEN', note: 'mine' } }),
        200,
      );
      const approved = answered(
        await staffApi.claims.approve({ params: { claimId: byStaff }, body: { resolutions: [{ type: 'RESHIP' }] } }),
        200,
      );
      expect(approved.claimResolutions.map((r) => r.userId)).toEqual([user.id]);
      answered(
        await s.api.claims.approve({ params: { claimId: byApp }, body: { resolutions: [{ type: 'RESHIP' }] } }),
        200,
      );
      const moves = await server.db
        .selectFrom('claimStateChanges')
        .select(['claimId', 'toState', 'clientId', 'userId'])
        .where('claimId', 'in', [byStaff, byApp])
        .orderBy('id')
        .execute();
      expect(moves).toEqual([
        { claimId: byStaff, toState: 'OPEN', clientId: null, userId: user.id },
        { claimId: byStaff, toState: 'APPROVED', clientId: null, userId: user.id },
        { claimId: byApp, toState: 'APPROVED', clientId: s.clientId, userId: null },
      ]);
      const appRecord = answered(await s.api.claims.get({ params: { claimId: byApp } }), 200);
      expect(appRecord.claimResolutions.map((r) => r.userId)).toEqual([s.clientId]);
    });

    it('a staff write of pricing and widgets leaves updatedByApplicationId null', async () => {
      const { access_token } = await staffToken(ownerDash);
      const api = server.api(access_token);
      const [ruleSet] = answered(await api.pricing.list(), 200).data;
      const updated = answered(
        await api.pricing.update({ params: { ruleSetId: ruleSet!.id }, body: { automaticallyAddToCart: true } }),
        200,
      );
      expect(updated.data[0]!.updatedByApplicationId).toBeNull();
      const [widget] = answered(await api.widgets.list(), 200).data;
      const written = answered(
        await api.widgets.update({ params: { widgetConfigId: widget!.id }, body: { name: 'By staff' } }),
        200,
      );
      expect(written.data.updatedByApplicationId).toBeNull();
    });

    it('files a claim for a shopper and quotes from the merchant rules, with no app', async () => {
      const s = await claimStore(server, `file-${randomBytes(3).toString('hex')}`);
      await s.putOrder('o-file');
      const { access_token } = await staffToken(await dashboardTokenFor(server, s.owner.user.id), s.owner.store.id);
      const filed = await server
        .api(access_token)
        .claims.file({ params: { sourceOrderId: 'o-file' }, body: claimBody() });
      expect(filed.status).toBe(200);
      const quote = answered(
        await server.api(access_token).quote.create({
          body: { policyType: 'SHIPPING', orderTotal: 100, variantKey: 'anything' },
        }),
        201,
      );
      expect(quote.data.source).toBe('merchant');
    });

    it("keeps a staff member's Idempotency-Key apart: the same key answers the first answer again", async () => {
      const s = await claimStore(server, `idem-${randomBytes(3).toString('hex')}`);
      await s.putOrder('o-idem');
      const { access_token } = await staffToken(await dashboardTokenFor(server, s.owner.user.id), s.owner.store.id);
      const file = (token: string) =>
        server.request('/v1/claims/o-idem', {
          method: 'POST',
          headers: { ...bearer(token), 'idempotency-key': 'staff-key-1' },
          json: claimBody(),
        });
      const first = await file(access_token);
      const again = await file(access_token);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
      // The app's key of the same name is the app's own.
      const byApp = await file(s.token);
      expect(byApp.headers.get('idempotent-replayed')).toBeNull();
      expect(byApp.headers.get('location')).not.toBe(first.headers.get('location'));
    });
  });

  describe('the last owner', () => {
    const conflictOf = async (work: Promise<void>) => {
      try {
        await work;
        return undefined;
      } catch (err) {
        if (err instanceof Refusal) return err;
        throw err;
      }
    };

    it('refuses demoting or removing the only owner (409) and changes nothing', async () => {
      const solo = await createOwner(server.db, `solo-${randomBytes(3).toString('hex')}`);
      const demoted = await conflictOf(changeMemberRole(server.db, solo.store.id, solo.user.id, 'admin'));
      expect(demoted).toMatchObject({ kind: 'conflict', message: LAST_OWNER });
      const removed = await conflictOf(removeMember(server.db, solo.store.id, solo.user.id));
      expect(removed).toMatchObject({ kind: 'conflict', message: LAST_OWNER });
      const row = await server.db
        .selectFrom('storeMembers')
        .select('role')
        .where('storeId', '=', solo.store.id)
        .executeTakeFirstOrThrow();
      expect(row.role).toBe('owner');
      // With a second owner, one may go.
      const { user } = await member('owner', solo.store.id);
      await changeMemberRole(server.db, solo.store.id, solo.user.id, 'viewer');
      expect(await conflictOf(removeMember(server.db, solo.store.id, user.id))).toMatchObject({ kind: 'conflict' });
    });

    it('of concurrent demotions and removals of two owners, exactly one passes, every time', async () => {
      for (let round = 0; round < 10; round++) {
        const store = await createOwner(server.db, `race-${round}-${randomBytes(3).toString('hex')}`);
        const { user: second } = await member('owner', store.store.id);
        const works =
          round % 2 === 0
            ? [
                changeMemberRole(server.db, store.store.id, store.user.id, 'agent'),
                changeMemberRole(server.db, store.store.id, second.id, 'viewer'),
              ]
            : [
                removeMember(server.db, store.store.id, store.user.id),
                changeMemberRole(server.db, store.store.id, second.id, 'admin'),
              ];
        const outcomes = await Promise.all(works.map(conflictOf));
        expect(
          outcomes.filter((o) => o === undefined),
          `round ${round}`,
        ).toHaveLength(1);
        expect(outcomes.find((o) => o !== undefined)).toMatchObject({ kind: 'conflict', message: LAST_OWNER });
        const owners = await server.db
          .selectFrom('storeMembers')
          .select('userId')
          .where('storeId', '=', store.store.id)
          .where('role', '=', 'owner')
          .execute();
        expect(owners).toHaveLength(1);
      }
    });

    it('answers 404 for a member the store does not have', async () => {
      expect(await conflictOf(changeMemberRole(server.db, owner.store.id, 'usr_none', 'agent'))).toMatchObject({
        kind: 'missing',
      });
      expect(await conflictOf(removeMember(server.db, owner.store.id, 'usr_none'))).toMatchObject({ kind: 'missing' });
    });
  });

  describe('ending staff tokens on every process (D13)', () => {
    let second: Awaited<ReturnType<typeof startSecondServer>>;
    beforeAll(async () => {
      second = await startSecondServer(server);
    });
    afterAll(async () => {
      await second.close();
    });

    /** Waits until both processes refuse `token` (401), and answers how long the slower took. */
    async function refusedEverywhere(token: string, since: number): Promise<number> {
      let slowest = 0;
      for (const base of [server.baseUrl, second.baseUrl]) {
        for (;;) {
          const res = await fetch(`${base}/v2/settings`, { headers: bearer(token) });
          if (res.status === 401) break;
          expect(res.status).toBe(200);
          if (Date.now() - since > 5_000) throw new Error(`${base} still accepts the token`);
          await new Promise((r) => setTimeout(r, 20));
        }
        slowest = Math.max(slowest, Date.now() - since);
      }
      return slowest;
    }

    const acceptedEverywhere = async (token: string) => {
      for (const base of [server.baseUrl, second.baseUrl]) {
        expect((await fetch(`${base}/v2/settings`, { headers: bearer(token) })).status).toBe(200);
      }
    };

    it('a role change ends the old role’s tokens within a second; a new token carries the new role', async () => {
      const { user, dash } = await member('admin');
      const before = (await staffToken(dash)).access_token;
      await acceptedEverywhere(before);
      const at = Date.now();
      await changeMemberRole(server.db, owner.store.id, user.id, 'viewer');
      expect(await refusedEverywhere(before, at)).toBeLessThan(1000);
      const after = await staffToken(dash);
      expect(after.scope.split(' ').sort()).toEqual([...ROLE_SCOPES.viewer].sort());
      await acceptedEverywhere(after.access_token);
    });

    it('a removal ends the member’s tokens within a second, and no new one is minted (404)', async () => {
      const { user, dash } = await member('agent');
      const token = (await staffToken(dash)).access_token;
      await acceptedEverywhere(token);
      const at = Date.now();
      await removeMember(server.db, owner.store.id, user.id);
      expect(await refusedEverywhere(token, at)).toBeLessThan(1000);
      expect((await server.api(dash).stores.mintStaffToken({ params: { storeId: owner.store.id } })).status).toBe(404);
    });

    it('signing out ends the staff tokens minted from that session within a second', async () => {
      const { user } = await member('viewer');
      const sessionId = await startBrowserSession(server.db, user.id);
      const keys = tokenKeys(server.config.secretKey, server.config.publicBaseUrl);
      const dash = issueDashboardToken(keys, { userId: user.id, grantId: sessionId }).token;
      const token = (await staffToken(dash)).access_token;
      await acceptedEverywhere(token);
      const at = Date.now();
      await endBrowserSession(server.db, sessionId);
      expect(await refusedEverywhere(token, at)).toBeLessThan(1000);
    });

    it('a password change ends the other sessions and their staff tokens; the asking session stays', async () => {
      const password = 'a long enough password';
      const { user, dash: other } = await member('owner');
      const otherStaff = (await staffToken(other)).access_token;
      const login = answered(await server.api().auth.login({ body: { email: user.email, password } }), 200).data;
      const current = login.access_token;
      const currentStaff = (await staffToken(current)).access_token;
      await acceptedEverywhere(otherStaff);

      const wrong = await server.api(current).auth.changePassword({
        body: { currentPassword: 'not it at all', newPassword: 'another long password' },
      });
      expect(wrong.status).toBe(400);
      const short = await server.request('/v1/auth/password', {
        method: 'POST',
        headers: bearer(current),
        json: { currentPassword: password, newPassword: 'too short' },
      });
      expect(short.status).toBe(400);
      expect((await errorOf(short)).issues?.[0]?.path).toBe('body.newPassword');

      const at = Date.now();
      const changed = await server.api(current).auth.changePassword({
        body: { currentPassword: password, newPassword: 'another long password' },
      });
      expect(answered(changed, 200).data).toEqual({ ok: true });
      expect(await refusedEverywhere(otherStaff, at)).toBeLessThan(1000);
      expect((await server.api(other).stores.listInstallations({ params: { storeId: owner.store.id } })).status).toBe(
        401,
      );
      // The session that asked keeps its tokens, refresh token included.
      await acceptedEverywhere(currentStaff);
      expect((await server.api().auth.refresh({ body: { refreshToken: login.refresh_token } })).status).toBe(200);
      // The old password no longer signs in; the new one does.
      expect((await server.api().auth.login({ body: { email: user.email, password } })).status).toBe(401);
      expect(
        (await server.api().auth.login({ body: { email: user.email, password: 'another long password' } })).status,
      ).toBe(200);
    });
  });
});

describe('the password route is limited per user as sign-in is (D4, D49)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 2 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses the third guess at the current password with 429, whichever token asks', async () => {
    const owner = await createOwner(server.db, 'password-limit');
    const tokens = [await dashboardTokenFor(server, owner.user.id), await dashboardTokenFor(server, owner.user.id)];
    const guess = (token: string) =>
      server
        .api(token)
        .auth.changePassword({ body: { currentPassword: 'a wrong guess here', newPassword: 'another long password' } });
    // The limit counts per clock minute (D4): the three guesses all fall in one.
    await withinOneRateWindow();
    expect((await guess(tokens[0]!)).status).toBe(400);
    expect((await guess(tokens[1]!)).status).toBe(400);
    const limited = await guess(tokens[0]!);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    // Another user is not limited by this one's guesses.
    const other = await createOwner(server.db, 'password-limit-other');
    expect((await guess(await dashboardTokenFor(server, other.user.id))).status).toBe(400);
  });
});

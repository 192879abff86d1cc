import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordVerifications } from '../../src/domain/auth/dashboard';
import { digest } from '../../src/lib/crypto';
import { answered, createOwner, errorOf, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** POST /v1/auth/login and /v1/auth/refresh (D8, D12). */
describe('dashboard login and refresh (D8)', () => {
  let server: TestServer;
  let owner: Owner;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'dash');
  });
  afterAll(async () => {
    await server.close();
  });

  const login = (email: string, password: string) => server.api().auth.login({ body: { email, password } });
  const refresh = (refreshToken: string) => server.api().auth.refresh({ body: { refreshToken } });
  const loggedIn = async () => answered(await login(owner.user.email, owner.password), 200).data;
  /** A dashboard route the owner may call: answers 200 while the token is good. */
  const dashboardCall = (accessToken: string) =>
    server.api(accessToken).stores.listInstallations({ params: { storeId: owner.store.id } });

  it('logs in with e-mail and password and answers tokens and the user', async () => {
    const { data } = answered(await login(owner.user.email.toUpperCase(), owner.password), 200);
    expect(data).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^svc_drt_[A-Za-z0-9_-]{43}$/),
      expires_in: 900,
      token_type: 'Bearer',
      user: {
        id: owner.user.id,
        email: owner.user.email,
        firstName: null,
        lastName: null,
        stores: [
          { id: owner.store.id, name: owner.store.name, domain: owner.store.domain, role: 'owner', livemode: true },
        ],
      },
    });
    // The access token works on a dashboard route.
    expect((await dashboardCall(data.access_token)).status).toBe(200);
    // D5: only the digest of the refresh token is stored, under a dashboard grant of the user.
    const stored = await server.db
      .selectFrom('refreshTokens as r')
      .innerJoin('grants as g', 'g.id', 'r.grantId')
      .select(['r.tokenHash', 'g.kind', 'g.userId'])
      .where('r.tokenHash', '=', digest(data.refresh_token))
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ tokenHash: digest(data.refresh_token), kind: 'dashboard', userId: owner.user.id });
    const plain = await server.db
      .selectFrom('refreshTokens')
      .select('tokenHash')
      .where('tokenHash', '=', data.refresh_token)
      .execute();
    expect(plain).toHaveLength(0);
  });

  it('answers the same 401 for a wrong password and an unknown e-mail, after the same work', async () => {
    // Each attempt's verifications, as the service reports them (D8): the work done, not a
    // stopwatch a busy machine can fail.
    const seen: string[] = [];
    const record = (message: unknown) => seen.push((message as { parameters: string }).parameters);
    const { passwordHash } = await server.db
      .selectFrom('dashboardUsers')
      .select('passwordHash')
      .where('id', '=', owner.user.id)
      .executeTakeFirstOrThrow();
    const ownParameters = passwordHash.split('$', 4).join('$');
    expect(ownParameters).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
    passwordVerifications.subscribe(record);
    try {
      const attempt = async (email: string, password: string) => {
        seen.length = 0;
        const res = await login(email, password);
        return { status: res.status, body: res.body, verified: [...seen] };
      };
      const wrong = await attempt(owner.user.email, `${owner.password}x`);
      const unknown = await attempt('nobody@example.com', owner.password);
      const right = await attempt(owner.user.email, owner.password);
      expect([wrong.status, unknown.status, right.status]).toEqual([401, 401, 200]);
      expect(wrong.body).toEqual({ statusCode: 401, message: expect.any(String), error: 'Unauthorized' });
      expect(unknown.body).toEqual(wrong.body);
      expect(JSON.stringify(wrong.body)).not.toContain(owner.password);
      // One argon2id verification each, with the parameters of a real user's hash.
      expect(wrong.verified).toEqual([ownParameters]);
      expect(unknown.verified).toEqual([ownParameters]);
      expect(right.verified).toEqual([ownParameters]);
    } finally {
      passwordVerifications.unsubscribe(record);
    }
  });

  it.each([
    ['no password', { email: 'a@example.com' }],
    ['an invalid e-mail', { email: 'not-an-email', password: 'x' }],
    ['an empty password', { email: 'a@example.com', password: '' }],
    ['an unknown property', { email: 'a@example.com', password: 'x', remember: true }],
  ])('answers 400 with issues for %s', async (_name, json) => {
    const res = await server.request('/v1/auth/login', { method: 'POST', json });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.issues!.length).toBeGreaterThan(0);
  });

  it('rotates the refresh token: a new pair, and the new access token works', async () => {
    const first = await loggedIn();
    const { data } = answered(await refresh(first.refresh_token), 200);
    expect(data).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.stringMatching(/^svc_drt_/),
      expires_in: 900,
      token_type: 'Bearer',
    });
    expect(data.refresh_token).not.toBe(first.refresh_token);
    expect(data.access_token).not.toBe(first.access_token);
    expect((await dashboardCall(data.access_token)).status).toBe(200);
    // And the new refresh token rotates in turn.
    expect((await refresh(data.refresh_token)).status).toBe(200);
  });

  it('refuses unknown, foreign-kind and malformed refresh tokens with 401', async () => {
    expect((await refresh('svc_drt_unknown')).status).toBe(401);
    expect((await refresh('svc_rt_unknown')).status).toBe(401);
    const first = await loggedIn();
    // A dashboard access token is not a refresh token (D16).
    expect((await refresh(first.access_token)).status).toBe(401);
    expect((await refresh('')).status).toBe(400);
  });

  it('a retired refresh token presented again answers 401 and revokes the whole family (D12)', async () => {
    const first = await loggedIn();
    const second = answered(await refresh(first.refresh_token), 200).data;
    expect((await dashboardCall(second.access_token)).status).toBe(200);

    const replay = await refresh(first.refresh_token);
    expect(answered(replay, 401)).toMatchObject({ statusCode: 401, error: 'Unauthorized' });

    // The latest refresh token of the family is dead too...
    expect((await refresh(second.refresh_token)).status).toBe(401);
    // ...and every access token of the family stops working within about a second (D13).
    await expect
      .poll(async () => (await dashboardCall(second.access_token)).status, { timeout: 1500, interval: 100 })
      .toBe(401);
    expect((await dashboardCall(first.access_token)).status).toBe(401);
    const grant = await server.db
      .selectFrom('refreshTokens as r')
      .innerJoin('grants as g', 'g.id', 'r.grantId')
      .select(['g.revokedAt'])
      .where('r.tokenHash', '=', digest(first.refresh_token))
      .executeTakeFirstOrThrow();
    expect(grant.revokedAt).toBeInstanceOf(Date);

    // Another login (another family) is unaffected.
    const other = await loggedIn();
    expect((await dashboardCall(other.access_token)).status).toBe(200);
  });

  it('of two concurrent refreshes with one token, exactly one succeeds', async () => {
    const first = await loggedIn();
    const results = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401]);
    // Exactly one new refresh token was stored for the family (plus the retired original).
    const grantOf = await server.db
      .selectFrom('refreshTokens')
      .select('grantId')
      .where('tokenHash', '=', digest(first.refresh_token))
      .executeTakeFirstOrThrow();
    const family = await server.db
      .selectFrom('refreshTokens')
      .select('tokenHash')
      .where('grantId', '=', grantOf.grantId)
      .execute();
    expect(family).toHaveLength(2);
  });
});

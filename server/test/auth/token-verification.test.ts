import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../src/domain/auth/jwt';
import { recordRevocation } from '../../src/domain/auth/revocations';
import { tokenKeys } from '../../src/domain/auth/tokens';
import { bearer, createApp, createOwner, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Verifying an access token costs no database round trip in the steady state: the signature
 * is checked with a derived key, revocations come from the in-memory feed. The only queries
 * while requests flow are the feed's and the rate limiter's periodic ones, never one per
 * request.
 */
describe('access-token verification', () => {
  let server: TestServer;
  const queries: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({}, { onQuery: (sql) => queries.push(sql), rateLimits: { token: 1e9 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs no query per request on a token route that needs no data', async () => {
    // A path the route refuses at validation, after authentication and the scope check, so
    // the handler (and its queries) never runs, whatever the route does once written.
    const path = `/v1/orders/${'x'.repeat(256)}`;
    const owner = await createOwner(server.db, 'verify');
    const app = await createApp(server, owner.user.id);
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, ['order:read']);
    // Warm up: the first request waits for the feed's first read.
    expect((await server.request(path, { headers: bearer(accessToken) })).status).toBe(400);

    queries.length = 0;
    const requests = 200;
    const started = Date.now();
    for (let i = 0; i < requests; i++) {
      const res = await server.request(path, { headers: bearer(accessToken) });
      expect(res.status).toBe(400); // past authentication and the scope check
    }
    const elapsedMs = Date.now() - started;
    // The feeds' and the limiter's own periodic reads, whatever the machine's speed.
    const background = queries.filter((q) => /\brevocations\b|\brate_limit_counters\b|\bstore_changes\b/.test(q));
    // And D44's: the apps' pinned API versions, re-read twice a second, and the calls counted
    // per version, written once a second (apart from the count below).
    const pinReads = /"api_version" <> |\bapi_version_calls\b/;
    expect(
      queries.filter((q) => !background.includes(q) && !pinReads.test(q)),
      JSON.stringify(queries.slice(0, 5)),
    ).toEqual([]);
    // Periodic work only: about one revocation read per 250 ms, one limiter flush per 200 ms
    // and one store-change read a second.
    expect(background.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / 200) * 2 + 4);
    expect(background.length).toBeLessThan(requests);
  });
});

/** Verified tokens are kept in memory, never past their expiry and never past a revocation. */
describe('verified tokens, kept', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses a token it accepted once its expiry has passed, and one revoked since', async () => {
    const owner = await createOwner(server.db, 'kept');
    const app = await createApp(server, owner.user.id, { requestedScopes: ['store:read'] });
    const installed = await installWithToken(server, app.clientId, owner.store.id, ['store:read']);
    const keys = tokenKeys(server.config.secretKey, server.config.publicBaseUrl);
    const exp = Math.floor(Date.now() / 1000) + 2;
    const shortLived = `svc_at_${signJwt(keys.access, {
      iss: keys.issuer,
      aud: 'protection-service:access',
      sub: app.clientId,
      jti: `jti_${exp}`,
      gid: null,
      iid: installed.installationId,
      sid: owner.store.id,
      scope: 'store:read',
      iat: exp - 2,
      exp,
    })}`;
    const status = async (token: string) => (await server.request('/v2/settings', { headers: bearer(token) })).status;
    expect(await status(shortLived)).toBe(200);
    expect(await status(installed.accessToken)).toBe(200);
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    expect(await status(shortLived)).toBe(401);
    await recordRevocation(server.db, 'token', installed.jti, new Date(Date.now() + 3_600_000));
    await expect.poll(() => status(installed.accessToken), { timeout: 2_000 }).toBe(401);
  });
});

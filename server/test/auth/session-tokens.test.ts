import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { TCreatedApp } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionTokenKey } from '../../src/domain/auth/session-tokens';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
  withinOneRateWindow,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** A JWT with any header, signed by `signer` over `header.payload`. */
function forge(header: Record<string, unknown>, claims: Record<string, unknown>, signer: (msg: string) => Buffer) {
  const message = `${b64(header)}.${b64(claims)}`;
  return `${message}.${signer(message).toString('base64url')}`;
}
const hs =
  (key: Buffer, alg: 'sha256' | 'sha512' = 'sha256') =>
  (msg: string) =>
    createHmac(alg, key).update(msg).digest();

/** POST /v1/stores/:storeId/apps/:clientId/session-token and POST /v1/oauth/session/verify (D15). */
describe('embedded-app session tokens (D15)', () => {
  let server: TestServer;
  let owner: Owner;
  let outsider: Owner;
  let token: string;
  let app: TCreatedApp;
  let otherApp: TCreatedApp;
  let installationId: string;
  beforeAll(async () => {
    // Generous verify limit here: the 30/min limit (D4) is the gate's and is tested with it.
    server = await startTestServer({}, { rateLimits: { sessionVerify: 10_000 } });
    owner = await createOwner(server.db, 'sess');
    await server.db
      .updateTable('dashboardUsers')
      .set({ firstName: 'Ada', lastName: 'Lovelace' })
      .where('id', '=', owner.user.id)
      .execute();
    outsider = await createOwner(server.db, 'sess-out');
    token = await dashboardTokenFor(server, owner.user.id);
    app = await createApp(server, owner.user.id, { name: 'Embedded' });
    otherApp = await createApp(server, owner.user.id, { name: 'Other' });
    installationId = (await installWithToken(server, app.clientId, owner.store.id, ['order:read', 'store:read']))
      .installationId;
    await installWithToken(server, otherApp.clientId, owner.store.id, ['order:read']);
  });
  afterAll(async () => {
    await server.close();
  });

  const mint = (storeId: string, clientId: string, as = token) =>
    server.api(as).stores.mintSessionToken({ params: { storeId, clientId } });
  const minted = async (clientId = app.clientId) =>
    answered(await mint(owner.store.id, clientId), 200).data.session_token;
  const verify = (session_token: string) =>
    server.request('/v1/oauth/session/verify', { method: 'POST', json: { session_token } });
  const nowS = () => Math.floor(Date.now() / 1000);
  /** Claims as the service mints them, for forging variants. */
  const claims = (overrides: Record<string, unknown> = {}) => {
    const iat = nowS();
    return {
      iss: server.baseUrl,
      aud: app.clientId,
      sub: owner.user.id,
      dest: owner.store.id,
      sid: installationId,
      jti: randomBytes(8).toString('hex'),
      iat,
      nbf: iat,
      exp: iat + 60,
      ...overrides,
    };
  };
  const appKey = () => sessionTokenKey(server.config.secretKey, app.clientId);
  const HS256 = { alg: 'HS256', typ: 'JWT' };

  async function expectRefused(sessionToken: string) {
    const res = await verify(sessionToken);
    expect(res.status).toBe(401);
    // One answer for every failure: nothing says which check failed.
    expect(await res.json()).toEqual({ statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' });
  }

  it('mints an HS256 JWT with the D15 claims, valid 60 s', async () => {
    const jwt = await minted();
    const [header, payload] = jwt.split('.');
    expect(decode(header!)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const c = decode(payload!);
    expect(c).toEqual({
      iss: server.baseUrl,
      aud: app.clientId,
      sub: owner.user.id,
      dest: owner.store.id,
      sid: installationId,
      jti: expect.any(String),
      iat: expect.any(Number),
      nbf: c.iat,
      exp: c.iat + 60,
    });
    expect(Math.abs(c.iat - nowS())).toBeLessThanOrEqual(2);
    // Signed with the per-app key derived from the server key (D5), which is not the client secret.
    expect(forge({ alg: 'HS256', typ: 'JWT' }, c, hs(appKey())).split('.')[2]).toBe(jwt.split('.')[2]);
  });

  it('verifies a minted token and answers the spec object', async () => {
    const res = await verify(await minted());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      userId: owner.user.id,
      email: owner.user.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      storeId: owner.store.id,
      installationId,
      applicationId: app.clientId,
      clientId: app.clientId,
      scopes: ['order:read', 'store:read'],
    });
  });

  it('accepts expiry and not-before within the 5 s leeway', async () => {
    expect((await verify(forge(HS256, claims({ exp: nowS() - 2 }), hs(appKey())))).status).toBe(200);
    expect((await verify(forge(HS256, claims({ nbf: nowS() + 3 }), hs(appKey())))).status).toBe(200);
  });

  it('refuses alg none', async () => {
    await expectRefused(forge({ alg: 'none', typ: 'JWT' }, claims(), () => Buffer.alloc(0)));
    await expectRefused(forge({ alg: 'none', typ: 'JWT' }, claims(), hs(appKey())));
  });

  it('refuses HS512, even with the right key', async () => {
    await expectRefused(forge({ alg: 'HS512', typ: 'JWT' }, claims(), hs(appKey(), 'sha512')));
  });

  it('refuses RS256 (a real RSA signature, and the HMAC alg-confusion variant)', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expectRefused(
      forge({ alg: 'RS256', typ: 'JWT' }, claims(), (msg) => sign('sha256', Buffer.from(msg), privateKey)),
    );
    await expectRefused(forge({ alg: 'RS256', typ: 'JWT' }, claims(), hs(appKey())));
  });

  it("refuses a token signed with another app's key", async () => {
    await expectRefused(forge(HS256, claims(), hs(sessionTokenKey(server.config.secretKey, otherApp.clientId))));
    // A key from another server key is no better.
    await expectRefused(forge(HS256, claims(), hs(sessionTokenKey(randomBytes(32), app.clientId))));
  });

  it('refuses a wrong or unknown aud', async () => {
    // Another app's genuine token with its aud rewritten: the signature no longer matches.
    const other = await minted(otherApp.clientId);
    const [h, p, s] = other.split('.');
    const rewritten = { ...decode(p!), aud: app.clientId };
    await expectRefused(`${h}.${b64(rewritten)}.${s}`);
    // An unknown app, and an aud that is not a string.
    await expectRefused(forge(HS256, claims({ aud: 'svc_app_unknown' }), hs(appKey())));
    await expectRefused(forge(HS256, claims({ aud: [app.clientId] }), hs(appKey())));
    // The app's own key, but the token claims another app's installation.
    await expectRefused(forge(HS256, claims({ aud: otherApp.clientId }), hs(appKey())));
  });

  it('refuses an expired token and a not-yet-valid one beyond the leeway', async () => {
    const past = nowS() - 120;
    await expectRefused(forge(HS256, claims({ iat: past, nbf: past, exp: past + 60 }), hs(appKey())));
    await expectRefused(forge(HS256, claims({ exp: nowS() - 6 }), hs(appKey())));
    await expectRefused(forge(HS256, claims({ nbf: nowS() + 30 }), hs(appKey())));
    await expectRefused(forge(HS256, claims({ exp: undefined }), hs(appKey())));
  });

  it('refuses a tampered payload, a wrong issuer, a mismatched store and garbage', async () => {
    const jwt = await minted();
    const [h, p, s] = jwt.split('.');
    await expectRefused(`${h}.${b64({ ...decode(p!), sub: outsider.user.id })}.${s}`);
    await expectRefused(forge(HS256, claims({ iss: 'https://evil.example.com' }), hs(appKey())));
    await expectRefused(forge(HS256, claims({ dest: outsider.store.id }), hs(appKey())));
    // A correctly signed token for a user who is not a member of the store.
    await expectRefused(forge(HS256, claims({ sub: outsider.user.id }), hs(appKey())));
    await expectRefused('not.a.jwt');
    await expectRefused(token); // a dashboard token is not a session token (D16)
  });

  it('answers 400 for a malformed body', async () => {
    const res = await server.request('/v1/oauth/session/verify', { method: 'POST', json: { token: 'x' } });
    expect(res.status).toBe(400);
  });

  it('mints only for a store member with the app installed; 404 otherwise', async () => {
    const outsiderToken = await dashboardTokenFor(server, outsider.user.id);
    const foreign = await mint(owner.store.id, app.clientId, outsiderToken);
    const notInstalled = await mint(outsider.store.id, app.clientId, outsiderToken);
    const missing = await mint(owner.store.id, 'svc_app_missing');
    for (const res of [foreign, notInstalled, missing]) expect(res.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await mint(owner.store.id, app.clientId, 'svc_at_nope')).status).toBe(401);
  });

  it('refuses the token of an uninstalled installation, and mints none for it', async () => {
    const leaving = await createApp(server, owner.user.id, { name: 'Leaving' });
    await installWithToken(server, leaving.clientId, owner.store.id, ['store:read']);
    const res = await mint(owner.store.id, leaving.clientId);
    const jwt = answered(res, 200).data.session_token;
    expect((await verify(jwt)).status).toBe(200);
    const removed = await server.request(`/v1/stores/${owner.store.id}/installations/${leaving.clientId}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(removed.status).toBe(200);
    await expectRefused(jwt);
    expect((await mint(owner.store.id, leaving.clientId)).status).toBe(404);
  });
});

describe('session verify rate limit (spec: 30/min/IP)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { sessionVerify: 3 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 429 beyond the limit', async () => {
    // The limit counts per clock minute (D4): the 4 requests all fall in one.
    await withinOneRateWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await server.request('/v1/oauth/session/verify', {
        method: 'POST',
        json: { session_token: 'a.b.c' },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

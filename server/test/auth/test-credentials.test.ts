import { SCOPES, ZTokenResponse } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/src/index';
import { signJwt } from '../../src/domain/auth/jwt';
import { issueAccessToken, tokenKeys } from '../../src/domain/auth/tokens';
import { digest } from '../../src/lib/crypto';
import { answered, bearer } from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';
import { clientCredentials, type TestModeRig, testModeRig } from '../harness/test-mode';

/**
 * Test credentials (D45): the test client secret works only on the app's test stores and the
 * live one only on live stores (401 invalid_client either way); test tokens start
 * `svc_at_test_`; behind the store binding a token whose mode is not its store's is refused.
 */
describe('test credentials (D45)', () => {
  let server: TestServer;
  let rig: TestModeRig;

  beforeAll(async () => {
    server = await startTestServer();
    rig = await testModeRig(server, 'creds', [...SCOPES]);
  });
  afterAll(async () => {
    await server.close();
  });

  const settings = (token: string) => server.api(token).settings.get();

  it('the test secret mints test tokens for the test store, which read it', async () => {
    expect(rig.testToken).toMatch(/^svc_at_test_/);
    expect((await settings(rig.testToken)).status).toBe(200);
    const live = await clientCredentials(server, rig.app.clientId, rig.app.clientSecret, rig.owner.store.id);
    expect(live.status).toBe(200);
    const { access_token } = await jsonOf(live, ZTokenResponse);
    expect(access_token).toMatch(/^svc_at_(?!test_)/);
  });

  it('refuses either secret in the other mode with 401 invalid_client, and mints nothing', async () => {
    for (const [secret, storeId] of [
      [rig.app.testClientSecret, rig.owner.store.id],
      [rig.app.clientSecret, rig.testStore.id],
    ] as const) {
      const res = await clientCredentials(server, rig.app.clientId, secret, storeId);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    }
  });

  it('stores the test secret as a digest only, and rotates it on its own: the old one stops, the live one keeps working', async () => {
    const row = await server.db
      .selectFrom('apps')
      .selectAll()
      .where('clientId', '=', rig.app.clientId)
      .executeTakeFirstOrThrow();
    expect(row.testClientSecretHash).toBe(digest(rig.app.testClientSecret));
    expect(JSON.stringify(row)).not.toContain(rig.app.testClientSecret);
    const rotated = answered(
      await server
        .api(rig.dashboard)
        .apps.rotateSecret({ params: { clientId: rig.app.clientId }, body: { mode: 'test' } }),
      200,
    ).data;
    expect(rotated.clientSecret).toMatch(/^svc_test_secret_/);
    expect((await clientCredentials(server, rig.app.clientId, rig.app.testClientSecret, rig.testStore.id)).status).toBe(
      401,
    );
    expect((await clientCredentials(server, rig.app.clientId, rotated.clientSecret, rig.testStore.id)).status).toBe(
      200,
    );
    expect((await clientCredentials(server, rig.app.clientId, rig.app.clientSecret, rig.owner.store.id)).status).toBe(
      200,
    );
    rig.app.testClientSecret = rotated.clientSecret;
    // Without a body the live secret rotates, as before test mode.
    const live = answered(
      await server.api(rig.dashboard).apps.rotateSecret({ params: { clientId: rig.app.clientId } }),
      200,
    ).data;
    expect(live.clientSecret).toMatch(/^svc_secret_/);
    expect((await clientCredentials(server, rig.app.clientId, rotated.clientSecret, rig.testStore.id)).status).toBe(
      200,
    );
    rig.app.clientSecret = live.clientSecret;
  });

  it('refuses a token whose mode is not its store’s, however it was made', async () => {
    const keys = tokenKeys(server.config.secretKey, server.config.publicBaseUrl);
    const installation = await server.db
      .selectFrom('installations')
      .select('id')
      .where('storeId', '=', rig.testStore.id)
      .executeTakeFirstOrThrow();
    const base = { grantId: null, clientId: rig.app.clientId, scopes: ['store:read' as const] };
    // A live token on the test store, and a test token on the live store: signed, but in the wrong
    // mode. No grant mints either; the gate refuses a live token on a store it knows as a test
    // store (it knows this one from its test token's requests), without a query on the live path.
    expect((await settings(rig.testToken)).status).toBe(200);
    const liveOnTest = issueAccessToken(keys, { ...base, installationId: installation.id, storeId: rig.testStore.id });
    const testOnLive = issueAccessToken(keys, {
      ...base,
      installationId: installation.id,
      storeId: rig.owner.store.id,
      livemode: false,
    });
    // The prefix is not the mode: a test token with `test_` cut off, and a live one with it added.
    const stripped = `svc_at_${rig.testToken.slice('svc_at_test_'.length)}`;
    const dressed = `svc_at_test_${rig.liveToken.slice('svc_at_'.length)}`;
    const now = Math.floor(Date.now() / 1000);
    const oddClaim = `svc_at_test_${signJwt(keys.access, {
      iss: keys.issuer,
      aud: 'protection-service:access',
      sub: rig.app.clientId,
      jti: 'odd',
      gid: null,
      iid: installation.id,
      sid: rig.testStore.id,
      scope: 'store:read',
      lm: 'no',
      iat: now,
      exp: now + 600,
    })}`;
    for (const token of [liveOnTest.token, testOnLive.token, stripped, dressed, oddClaim]) {
      const res = await server.request('/v2/settings', { headers: bearer(token) });
      expect(res.status, token.slice(0, 16)).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('the SDK tells the mode from the token', () => {
    expect(createClient({ baseUrl: server.baseUrl, accessToken: rig.testToken }).livemode).toBe(false);
    expect(createClient({ baseUrl: server.baseUrl, accessToken: rig.liveToken }).livemode).toBe(true);
    expect(createClient({ baseUrl: server.baseUrl }).livemode).toBeUndefined();
  });
});

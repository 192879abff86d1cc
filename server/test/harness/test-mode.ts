import type { Scope, TCreatedApp } from '@protection-service/contract';
import { ZTokenResponse } from '@protection-service/contract';
import { answered, createApp, createOwner, dashboardTokenFor, installWithToken, type Owner } from './fixtures';
import { jsonOf } from './json';
import type { TestServer } from './server';

/**
 * Test mode (D45) the way a partner developer meets it: an owner with a live store, an app
 * installed there, and a test store of the app made over HTTP, with a test token got with the
 * app's test client secret.
 */
export interface TestModeRig {
  owner: Owner;
  dashboard: string;
  app: TCreatedApp;
  /** The live store's token (`svc_at_`). */
  liveToken: string;
  testStore: { id: string; domain: string };
  /** A token of the test store (`svc_at_test_`), from the client-credentials grant. */
  testToken: string;
}

/** The client-credentials grant as a partner makes it, with a secret of either mode. */
export async function clientCredentials(server: TestServer, clientId: string, clientSecret: string, storeId: string) {
  return server.request('/v1/oauth/token', {
    method: 'POST',
    json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, store_id: storeId },
  });
}

export async function testModeRig(
  server: TestServer,
  label: string,
  scopes: Scope[],
  app: Partial<Parameters<typeof createApp>[2]> = {},
): Promise<TestModeRig> {
  const owner = await createOwner(server.db, label);
  const dashboard = await dashboardTokenFor(server, owner.user.id);
  const created = await createApp(server, owner.user.id, { requestedScopes: scopes, ...app });
  const { accessToken: liveToken } = await installWithToken(server, created.clientId, owner.store.id, scopes);
  const store = answered(
    await server.api(dashboard).apps.createTestStore({ params: { clientId: created.clientId }, body: { name: label } }),
    201,
  ).data;
  const res = await clientCredentials(server, created.clientId, created.testClientSecret, store.id);
  if (res.status !== 200) throw new Error(`test token: ${res.status} ${await res.text()}`);
  const { access_token: testToken } = await jsonOf(res, ZTokenResponse);
  return { owner, dashboard, app: created, liveToken, testStore: store, testToken };
}

import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, dashboardTokenFor, type Owner } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { runExample } from './harness/examples';

/** The numbered examples in sdk/examples run against the real server, as a partner runs them. */
describe('SDK examples', () => {
  let server: TestServer;
  let owner: Owner;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'sdk-examples');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    env = {
      SVC_BASE_URL: server.baseUrl,
      SVC_CLIENT_ID: app.clientId,
      SVC_CLIENT_SECRET: app.clientSecret,
      SVC_STORE_ID: owner.store.id,
      SVC_REDIRECT_URI: 'https://app.example.com/callback',
      SVC_DASHBOARD_TOKEN: await dashboardTokenFor(server, owner.user.id),
    };
  });
  afterAll(async () => {
    await server.close();
  });

  it('01: installs with PKCE, exchanges the code, and refreshes with rotation', async () => {
    const out = await runExample('01-install-and-tokens', env);
    expect(out).toMatch(/^installed with scopes: .*store:read/m);
    expect(out).toContain('refreshed: the new refresh token replaces the old one');
    expect(out).toMatch(/^store credit type: (GIFT_CARD|DISCOUNT_CODE)$/m);
    expect(out).toContain('refresh token rotated: true');
  }, 90_000);
});

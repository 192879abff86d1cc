import { existsSync } from 'node:fs';
import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePricing } from '../../server/src/domain/identity/apps';
import { freePort } from '../../server/src/free-port';
import {
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../../server/test/harness/fixtures';
import { startMailRunner } from '../../server/test/harness/mail';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { runExample } from './harness/examples';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
if (!CHROMIUM) console.warn('[sdk examples] 07 skipped: no Chromium found (install chromium or set CHROMIUM_PATH)');

/** The numbered examples in sdk/examples run against the real server, as a partner runs them. */
describe('SDK examples', () => {
  let server: TestServer;
  let owner: Owner;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'sdk-examples');
    // Example 07's redirect handler listens on loopback; the app registers that URI too.
    const browserRedirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const app = await createApp(server, owner.user.id, {
      requestedScopes: [...SCOPES],
      redirectUris: ['https://app.example.com/callback', browserRedirectUri],
    });
    // An operator lets the app be granted the pricing scopes (D9), so the install grants them all.
    await approvePricing(server.db, app.clientId);
    await installWithToken(server, app.clientId, owner.store.id, [...SCOPES]);
    env = {
      SVC_BASE_URL: server.baseUrl,
      SVC_CLIENT_ID: app.clientId,
      SVC_CLIENT_SECRET: app.clientSecret,
      SVC_STORE_ID: owner.store.id,
      SVC_REDIRECT_URI: 'https://app.example.com/callback',
      SVC_DASHBOARD_TOKEN: await dashboardTokenFor(server, owner.user.id),
      SVC_BROWSER_REDIRECT_URI: browserRedirectUri,
      SVC_MERCHANT_EMAIL: owner.user.email,
      SVC_MERCHANT_PASSWORD: owner.password,
      ...(CHROMIUM ? { CHROMIUM_PATH: CHROMIUM } : {}),
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

  it('02: syncs an order and its fulfillment with client credentials', async () => {
    const out = await runExample('02-sync-orders', env);
    expect(out).toMatch(/^order example-\d+: protection ACTIVE$/m);
    expect(out).toContain('fulfillments: ful-1 IN_TRANSIT');
  }, 90_000);

  it('03: files a claim once under its own key, approves it, and cannot deny it after', async () => {
    const out = await runExample('03-file-and-approve-a-claim', env);
    expect(out).toMatch(/^filed \S+; sent twice, replayed: true$/m);
    expect(out).toMatch(/is NEW, linked to policy: true$/m);
    expect(out).toContain('approved: APPROVED, resolutions: 1');
    expect(out).toMatch(/^deny after approve: 409 /m);
  }, 90_000);

  it('04: pages through every claim', async () => {
    const out = await runExample('04-page-all-claims', env);
    expect(out).toMatch(/^claims: 1$/m); // the one example 03 filed
    expect(out).toContain('  APPROVED: 1');
  }, 90_000);

  it('05: prices a cohort, quotes it, and reads it as the widget does', async () => {
    const out = await runExample('05-cohort-pricing-and-quote', env);
    expect(out).toContain('quote for 150.00: premium 3 (partner, cohort cheap-');
    expect(out).toContain('widget pricing: partner, 2 rules, premium at 50.00: 1.5');
  }, 90_000);

  it('06: verifies webhook deliveries in a small handler, refuses a forged one, survives a rotation', async () => {
    const out = await runExample('06-receive-webhooks', env);
    expect(out.match(/^verified claim\/approved for store /gm)).toHaveLength(2);
    expect(out).toContain('test event delivered: true');
    expect(out).toContain('refused a delivery: signature');
    expect(out).toContain('after rotation, delivered: true');
  }, 90_000);

  it('08: makes a test store, drives a claim to APPROVED with the test helpers, and verifies its webhook (D45)', async () => {
    // A delivering runner, so that the test store's events reach the example's handler.
    const { delivery } = await startMailRunner(server, {});
    try {
      const out = await runExample('08-test-mode', env);
      expect(out).toMatch(/^test store example-dev-shop-[a-z0-9]+\.test, livemode false$/m);
      expect(out).toContain('client.livemode: false');
      expect(out).toContain('claim APPROVED, store credit e-mail NOT_SENT');
      expect(out).toContain('verified claim/approved, livemode false');
      expect(out).toMatch(/^e-mails kept, not sent: [1-9]/m);
      expect(out).toContain('test store deleted');
    } finally {
      await delivery.stop();
    }
  }, 90_000);

  it.skipIf(!CHROMIUM)(
    '07: installs through the authorization page in headless Chromium (D40)',
    async () => {
      const out = await runExample('07-install-in-a-browser', env);
      expect(out).toContain('merchant saw: Installed. You can close this tab.');
      expect(out).toMatch(/^installed with scopes: .*order:read/m);
      expect(out).toMatch(/^store credit type: (GIFT_CARD|DISCOUNT_CODE)$/m);
    },
    90_000,
  );
});

import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePricing } from '../../server/src/domain/identity/apps';
import { createOwner, type Owner } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { deniedBody, record } from '../../server/test/harness/webhooks';
import { type Client, createClient, exchangeCode, paginate, unwrap } from '../src/index';

/**
 * The routes the other SDK tests and the examples do not reach, through the SDK against the
 * real server: a dashboard user's whole day (login, refresh, an app, its install and session
 * tokens, its event log, uninstall) and the merchant pricing rules. With them every operation
 * of the latest version is called through the SDK in a full run; 2025-01-01's token routes are
 * called in every-route-2025-01-01.sdk.test.ts (D44, sdk/test/harness/route-coverage.ts).
 */
describe('SDK: the dashboard and OAuth routes, end to end', () => {
  const REDIRECT = 'https://app.example.com/callback';
  let server: TestServer;
  let owner: Owner;
  let anonymous: Client;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'sdk-every-route');
    anonymous = createClient({ baseUrl: server.baseUrl });
  });
  afterAll(async () => {
    await server.close();
  });

  it('logs in, registers and installs an app, and drives it through the dashboard routes', async () => {
    const discovery = unwrap(await anonymous.oauth.discovery());
    expect(discovery.token_endpoint).toBe(`${server.baseUrl}/v1/oauth/token`);

    const login = unwrap(
      await anonymous.auth.login({ body: { email: owner.user.email, password: owner.password } }),
    ).data;
    expect(login.user.stores.map((s) => s.id)).toEqual([owner.store.id]);
    const refreshed = unwrap(await anonymous.auth.refresh({ body: { refreshToken: login.refresh_token } })).data;
    expect(refreshed.refresh_token).not.toBe(login.refresh_token); // rotated (D8, D12)
    const dashboard = createClient({ baseUrl: server.baseUrl, accessToken: refreshed.access_token });

    const app = unwrap(
      await dashboard.apps.create({
        body: {
          name: 'Every route',
          redirectUris: [REDIRECT],
          // Nothing listens there: deliveries fail, which the event log shows.
          webhookUrl: 'http://127.0.0.1:9/hooks',
          webhookTopics: ['claim/denied'],
          requestedScopes: [...SCOPES],
          distribution: 'public',
        },
      }),
    ).data;
    expect(unwrap(await dashboard.apps.get({ params: { clientId: app.clientId } })).data.name).toBe('Every route');
    const rotated = unwrap(await dashboard.apps.rotateSecret({ params: { clientId: app.clientId } })).data;
    expect(rotated.clientSecret).toMatch(/^svc_secret_/);
    await approvePricing(server.db, app.clientId);

    const install = { clientId: app.clientId, redirectUri: REDIRECT, storeId: owner.store.id };
    const consent = unwrap(await dashboard.oauth.authorize({ body: install })).data;
    expect(consent.grantableScopes).toContain('pricing:shipping-insurance:update');
    const approved = unwrap(await dashboard.oauth.approve({ body: install })).data;
    const tokens = await exchangeCode({
      baseUrl: server.baseUrl,
      clientId: app.clientId,
      clientSecret: rotated.clientSecret,
      code: approved.code,
      redirectUri: REDIRECT,
    });
    const installations = unwrap(await dashboard.stores.listInstallations({ params: { storeId: owner.store.id } }));
    expect(installations.data.map((i) => i.clientId)).toEqual([app.clientId]);

    // The embedded app's session token, minted by the dashboard and checked by the app (D15).
    const minted = unwrap(
      await dashboard.stores.mintSessionToken({ params: { storeId: owner.store.id, clientId: app.clientId } }),
    ).data;
    const session = unwrap(await anonymous.oauth.sessionVerify({ body: { session_token: minted.session_token } }));
    expect(session).toMatchObject({ storeId: owner.store.id, clientId: app.clientId, userId: owner.user.id });

    // The merchant's pricing rules, with the app's token.
    const partner = createClient({ baseUrl: server.baseUrl, accessToken: tokens.accessToken });
    const [shipping] = unwrap(await partner.pricing.list()).data.filter((set) => set.type === 'SHIPPING');
    const updated = unwrap(
      await partner.pricing.update({ params: { ruleSetId: shipping!.id }, body: { automaticallyAddToCart: true } }),
    );
    expect(updated.data.find((set) => set.id === shipping!.id)?.automaticallyAddToCart).toBe(true);

    // The event log (D34): an event for the store, listed page by page, and redelivered.
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    const logged = [];
    for await (const e of paginate(dashboard.apps.listEvents, { params: { clientId: app.clientId } })) logged.push(e);
    expect(logged.map((e) => e.id)).toEqual([event.id]);
    const redelivered = unwrap(
      await dashboard.apps.redeliverEvent({ params: { clientId: app.clientId, eventId: event.id } }),
    ).data;
    expect(redelivered).toMatchObject({ id: event.id, status: 'pending' });

    // Uninstall (D14): the app's tokens stop working.
    unwrap(await dashboard.stores.uninstall({ params: { storeId: owner.store.id, clientId: app.clientId } }));
    await expect.poll(async () => (await partner.settings.get()).status, { timeout: 3_000, interval: 100 }).toBe(401);
  });
});

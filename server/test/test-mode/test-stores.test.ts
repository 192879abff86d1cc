import { SCOPES, ZTokenResponse } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/domain/identity/stores';
import { claimBody, orderBody } from '../harness/claims';
import { answered, bearer, createApp, createOwner, dashboardTokenFor, type Owner } from '../harness/fixtures';
import { seedCohorts, storeRows } from '../harness/isolation-cases';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';
import { clientCredentials } from '../harness/test-mode';

/**
 * Test stores (D45): made, listed and deleted by the app's owner only; livemode false for
 * life; the app installed on all its requested scopes (pricing without approval, never
 * carried over to a live store); at most 5 per app; deletion leaves no row behind.
 */
const REDIRECT = 'https://app.example.com/callback';

describe('test stores (D45)', () => {
  let server: TestServer;
  let owner: Owner;
  let dashboard: string;
  let strangerDashboard: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'ts-owner');
    dashboard = await dashboardTokenFor(server, owner.user.id);
    strangerDashboard = await dashboardTokenFor(server, (await createOwner(server.db, 'ts-stranger')).user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  const newApp = () =>
    createApp(server, owner.user.id, {
      requestedScopes: [...SCOPES],
      distribution: 'public',
      redirectUris: [REDIRECT],
    });
  const create = (clientId: string, name = 'Dev shop', as = dashboard) =>
    server.api(as).apps.createTestStore({ params: { clientId }, body: { name } });

  it('creates a test store: livemode false, a .test domain, the owner a member, the app installed on every requested scope', async () => {
    const app = await newApp();
    const store = answered(await create(app.clientId, 'Dev Shop #1'), 201).data;
    expect(store).toEqual({
      id: expect.stringMatching(/^st_/),
      name: 'Dev Shop #1',
      domain: expect.stringMatching(/^dev-shop-1-[a-z0-9]+\.test$/),
      livemode: false,
      createdAt: expect.stringMatching(/Z$/),
    });
    const row = await server.db.selectFrom('stores').selectAll().where('id', '=', store.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ livemode: false, testClientId: app.clientId, domain: store.domain });
    const inst = await server.db
      .selectFrom('installations')
      .select('scopes')
      .where('storeId', '=', store.id)
      .executeTakeFirstOrThrow();
    // Pricing scopes included though no operator approved the app: this grant is the test store's only.
    expect([...inst.scopes].sort()).toEqual([...SCOPES].sort());
    expect(
      (
        await server.db
          .selectFrom('apps')
          .select('pricingApproved')
          .where('clientId', '=', app.clientId)
          .executeTakeFirstOrThrow()
      ).pricingApproved,
    ).toBe(false);
    // Listed without any secret.
    expect(
      answered(await server.api(dashboard).apps.listTestStores({ params: { clientId: app.clientId } }), 200).data,
    ).toEqual([store]);
  });

  it('never carries the test grant of pricing scopes to a live store: the live consent still withholds them', async () => {
    const app = await newApp();
    answered(await create(app.clientId), 201);
    const preview = answered(
      await server
        .api(dashboard)
        .oauth.authorize({ body: { clientId: app.clientId, redirectUri: REDIRECT, storeId: owner.store.id } }),
      200,
    ).data;
    expect(preview.withheldScopes).toContain('pricing:shipping-insurance:update');
    expect(preview.grantableScopes).not.toContain('pricing:shipping-insurance:update');
  });

  it('shows a test client secret once, at the first test store of an app registered without one', async () => {
    const app = await newApp();
    await server.db
      .updateTable('apps')
      .set({ testClientSecretHash: null })
      .where('clientId', '=', app.clientId)
      .execute();
    const first = answered(await create(app.clientId), 201).data;
    expect(first.testClientSecret).toMatch(/^svc_test_secret_/);
    const second = answered(await create(app.clientId, 'Second'), 201).data;
    expect(second).not.toHaveProperty('testClientSecret');
    const token = await clientCredentials(server, app.clientId, first.testClientSecret!, second.id);
    expect(token.status).toBe(200);
    expect((await jsonOf(token, ZTokenResponse)).access_token).toMatch(/^svc_at_test_/);
  });

  it("answers 404 for another user's app, exactly as for a missing one, and makes nothing", async () => {
    const app = await newApp();
    const mine = answered(await create(app.clientId), 201).data;
    const before = await server.db.selectFrom('stores').select('id').execute();
    for (const [foreign, missing] of [
      [await create(app.clientId, 'x', strangerDashboard), await create('svc_app_missing', 'x', strangerDashboard)],
      [
        await server.api(strangerDashboard).apps.listTestStores({ params: { clientId: app.clientId } }),
        await server.api(strangerDashboard).apps.listTestStores({ params: { clientId: 'svc_app_missing' } }),
      ],
      [
        await server
          .api(strangerDashboard)
          .apps.deleteTestStore({ params: { clientId: app.clientId, storeId: mine.id } }),
        await server
          .api(strangerDashboard)
          .apps.deleteTestStore({ params: { clientId: 'svc_app_missing', storeId: mine.id } }),
      ],
    ]) {
      expect(foreign!.status).toBe(404);
      expect(foreign!.body).toEqual(missing!.body);
    }
    expect(await server.db.selectFrom('stores').select('id').execute()).toHaveLength(before.length);
  });

  it('allows at most 5 test stores per app: the sixth answers 409 and makes nothing', async () => {
    const app = await newApp();
    const made = await Promise.all([1, 2, 3, 4, 5].map((n) => create(app.clientId, `Shop ${n}`)));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const sixth = await create(app.clientId, 'Shop 6');
    expect(sixth.status).toBe(409);
    expect(sixth.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
    const count = await server.db.selectFrom('stores').select('id').where('testClientId', '=', app.clientId).execute();
    expect(count).toHaveLength(5);
  });

  it("keeps a store's mode for life, and refuses a .test domain for a live store", async () => {
    const app = await newApp();
    const store = answered(await create(app.clientId), 201).data;
    await expect(
      server.db.updateTable('stores').set({ name: 'renamed' }).where('id', '=', store.id).execute(),
    ).resolves.toBeDefined();
    await expect(sql`update stores set livemode = true where id = ${store.id}`.execute(server.db)).rejects.toThrow(
      /fixed for life/,
    );
    await expect(
      sql`update stores set livemode = false where id = ${owner.store.id}`.execute(server.db),
    ).rejects.toThrow(/fixed for life/);
    await expect(createStore(server.db, { name: 'Sneaky', domain: 'sneaky.test' })).rejects.toMatchObject({
      kind: 'invalid',
    });
    await expect(
      sql`insert into stores (id, name, domain, currency) values ('st_sneaky', 'S', 'sneaky2.test', 'USD')`.execute(
        server.db,
      ),
    ).rejects.toThrow(/stores_mode_check/);
  });

  it('serves the public reads of a test store, for widget testing', async () => {
    const app = await newApp();
    const store = answered(await create(app.clientId), 201).data;
    const res = await server.api().public.getInsurance({ query: { store_url: store.domain, subtotal: 120 } });
    expect(res.status).toBe(200);
  });

  it('runs the install flow and the authorization code grant on a test store, with the test secret only', async () => {
    const app = await newApp();
    const store = answered(await create(app.clientId), 201).data;
    const preview = answered(
      await server
        .api(dashboard)
        .oauth.authorize({ body: { clientId: app.clientId, redirectUri: REDIRECT, storeId: store.id } }),
      200,
    ).data;
    expect(preview.grantableScopes).toContain('pricing:shipping-insurance:update');
    const exchange = async (clientSecret: string) => {
      const approved = answered(
        await server.api(dashboard).oauth.approve({
          body: { clientId: app.clientId, redirectUri: REDIRECT, storeId: store.id, scopes: ['store:read'] },
        }),
        200,
      ).data;
      return server.request('/v1/oauth/token', {
        method: 'POST',
        json: {
          grant_type: 'authorization_code',
          client_id: app.clientId,
          client_secret: clientSecret,
          code: approved.code,
          redirect_uri: REDIRECT,
        },
      });
    };
    const live = await exchange(app.clientSecret);
    expect(live.status).toBe(401);
    expect(await live.json()).toMatchObject({ error: 'invalid_client' });
    const test = await exchange(app.testClientSecret);
    expect(test.status).toBe(200);
    const tokens = await jsonOf(test, ZTokenResponse);
    expect(tokens.access_token).toMatch(/^svc_at_test_/);
    expect(tokens.refresh_token!).toMatch(/^svc_rt_test_/);
    const refresh = (clientSecret: string, refreshToken: string) =>
      server.request('/v1/oauth/token', {
        method: 'POST',
        json: {
          grant_type: 'refresh_token',
          client_id: app.clientId,
          client_secret: clientSecret,
          refresh_token: refreshToken,
        },
      });
    const wrongMode = await refresh(app.clientSecret, tokens.refresh_token!);
    expect(wrongMode.status).toBe(401);
    const rotated = await refresh(app.testClientSecret, tokens.refresh_token!);
    expect(rotated.status).toBe(200);
    expect((await jsonOf(rotated, ZTokenResponse)).refresh_token).toMatch(/^svc_rt_test_/);
  });

  it('deletes a test store and every row of it, installations and tokens included; a table with a store_id left unemptied fails this', async () => {
    const app = await newApp();
    const store = answered(await create(app.clientId), 201).data;
    answered(
      await server.api(dashboard).apps.update({
        params: { clientId: app.clientId },
        body: {
          testWebhookUrl: 'http://127.0.0.1:9/hook',
          webhookTopics: ['claim/created'],
          webhookUrl: 'http://127.0.0.1:9/live',
        },
      }),
      200,
    );
    // A code, a grant and a refresh token, as the install flow leaves them.
    const approved = answered(
      await server.api(dashboard).oauth.approve({
        body: { clientId: app.clientId, redirectUri: REDIRECT, storeId: store.id, scopes: [...SCOPES] },
      }),
      200,
    ).data;
    const exchanged = await server.request('/v1/oauth/token', {
      method: 'POST',
      json: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.testClientSecret,
        code: approved.code,
        redirect_uri: REDIRECT,
      },
    });
    const { access_token: token } = await jsonOf(exchanged, ZTokenResponse);
    const api = server.api(token);
    // Orders, fulfillments, products, a claim approved with a store credit (mail), messages,
    // events and deliveries, a partner context with cohorts, idempotency records, cache announcements.
    answered(
      await api.orders.upsert({
        params: { sourceOrderId: 'd-1' },
        body: orderBody({ lineItems: [{ sourceItemId: 'i-1', quantity: 2 }] }),
      }),
      200,
    );
    answered(
      await api.orders.upsertFulfillment({
        params: { sourceOrderId: 'd-1', sourceFulfillmentId: 'f-1' },
        body: { fulfillmentStatus: 'IN_TRANSIT' },
      }),
      200,
    );
    answered(await api.products.upsert({ params: { productId: 'p-1' }, body: { name: 'Mug' } }), 200);
    const filed = await api.claims.file({ params: { sourceOrderId: 'd-1' }, body: claimBody() });
    const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
    answered(
      await api.claims.approve({
        params: { claimId },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 10 }] },
      }),
      200,
    );
    answered(await api.claims.postMessage({ params: { claimId }, body: { message: 'Hi', senderType: 'brand' } }), 200);
    await seedCohorts({ send: (method, path, json) => server.request(path, { method, headers: bearer(token), json }) });
    const offline = await server.request('/v1/claims/offline', {
      method: 'POST',
      headers: { ...bearer(token), 'idempotency-key': 'del-1' },
      json: {
        customer: { email: 'walk-in@example.com' },
        items: [{ name: 'Kettle', sourceItemId: 'kettle' }],
        warranty: { dateOfPurchase: '2026-01-01' },
        salesChannel: 'IN_STORE',
        claimCategory: 'WARRANTY',
      },
    });
    expect(offline.status, await offline.clone().text()).toBe(200);
    const shipping = answered(await api.pricing.list(), 200).data.find((r) => r.type === 'SHIPPING')!;
    answered(
      await api.pricing.update({ params: { ruleSetId: shipping.id }, body: { automaticallyAddToCart: true } }),
      200,
    );

    const tables = await sql<{ table: string }>`
      select table_name as table from information_schema.columns
      where table_schema = 'public' and column_name = 'store_id' order by table_name`.execute(server.db);
    const seeded = await storeRows(server.db, store.id);
    // Every kind of row the store can have is there before the deletion, so the check below is not empty.
    for (const table of [
      'orders',
      'claims',
      'products',
      'mail_messages',
      'webhook_events',
      'installations',
      'grants',
      'partner_contexts',
      'store_changes',
    ]) {
      expect((seeded[`${table}.store_id`] as unknown[]).length, table).toBeGreaterThan(0);
    }
    const installationIds = (
      await server.db.selectFrom('installations').select('id').where('storeId', '=', store.id).execute()
    ).map((r) => r.id);
    expect(
      await server.db
        .selectFrom('idempotencyKeys')
        .select('key')
        .where('installationId', 'in', installationIds)
        .execute(),
    ).not.toHaveLength(0);

    answered(
      await server.api(dashboard).apps.deleteTestStore({ params: { clientId: app.clientId, storeId: store.id } }),
      200,
    );

    for (const { table } of tables.rows) {
      const left = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(table)} where store_id = ${store.id}`.execute(server.db);
      expect(left.rows[0]!.n, `${table} keeps rows of the deleted store`).toBe(0);
    }
    for (const table of ['idempotency_keys', 'webhook_deliveries', 'authorization_codes']) {
      const left = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(table)} where installation_id = any(${installationIds})`.execute(
        server.db,
      );
      expect(left.rows[0]!.n, table).toBe(0);
    }
    const refreshLeft = await sql<{ n: number }>`
      select count(*)::int as n from refresh_tokens r left join grants g on g.id = r.grant_id where g.id is null`.execute(
      server.db,
    );
    expect(refreshLeft.rows[0]!.n).toBe(0);
    // Its access token stops working within a second (D13).
    const deadline = Date.now() + 1500;
    let status = (await api.settings.get()).status;
    while (status !== 401 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await api.settings.get()).status;
    }
    expect(status).toBe(401);
    // Gone: a second deletion, and a live store's id, answer 404.
    const again = await server
      .api(dashboard)
      .apps.deleteTestStore({ params: { clientId: app.clientId, storeId: store.id } });
    expect(again.status).toBe(404);
    const live = await server
      .api(dashboard)
      .apps.deleteTestStore({ params: { clientId: app.clientId, storeId: owner.store.id } });
    expect(live.status).toBe(404);
    expect(await server.db.selectFrom('stores').select('id').where('id', '=', owner.store.id).execute()).toHaveLength(
      1,
    );
  });
});

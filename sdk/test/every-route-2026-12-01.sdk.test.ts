import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, createTestStoreOf, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { createClient } from '../src/versions/2026-12-01';
import { answerLog } from './harness/answers';
import {
  claim,
  claimsWorkspace,
  injectTrackingEvents,
  order,
  ordersAndClaims,
  type V1Client,
} from './harness/every-route-v1';

type PreviousClient = ReturnType<typeof createClient>;

/**
 * Every token operation of API version 2026-12-01 (D44) through the client typed for it,
 * against the real server. It answers as its successor 2027-01-15 does but for one change
 * (D54): a claim the service filed from tracking reads `claimType: null`. With the other SDK
 * tests on the latest version and every-route-2025-01-01.sdk.test.ts, every versioned
 * operation is called on each version in a full run (sdk/test/harness/route-coverage.ts).
 */
describe('SDK 2026-12-01: every token route, end to end', () => {
  let server: TestServer;
  let client: PreviousClient;
  /** A token of a test store (D45), for the test helper routes. */
  let testClient: PreviousClient;
  let liveToken: string;
  const log = answerLog();
  const { answers, seen, body } = log;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const owner = await createOwner(server.db, 'sdk-every-route-2026');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    const live = await installWithToken(server, app.clientId, owner.store.id, [...SCOPES]);
    liveToken = live.accessToken;
    client = createClient({ baseUrl: server.baseUrl, accessToken: live.accessToken });
    const testStore = await createTestStoreOf(server, owner.user.id, app.clientId);
    const test = await installWithToken(server, app.clientId, testStore.id, [...SCOPES]);
    testClient = createClient({ baseUrl: server.baseUrl, accessToken: test.accessToken });
  });
  afterAll(async () => {
    await server.close();
  });

  it('orders, fulfillments and claims', async () => {
    await ordersAndClaims(client as unknown as V1Client, log);
  });

  it('the claims workspace (D51): the same answers as the latest version, additive', async () => {
    await claimsWorkspace(client as unknown as V1Client, log);
  });

  it('shows a claim filed from tracking with claimType null (D54)', async () => {
    const sourceOrderId = 'prev-lost';
    body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId }, body: order }), 200);
    const filed = seen('claims.file', await client.claims.file({ params: { sourceOrderId }, body: claim }));
    const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
    // As the tracking rules file it: the claim type names the rule (2027-01-15).
    await server.db.updateTable('claims').set({ claimType: 'LOST_IN_TRANSIT' }).where('id', '=', claimId).execute();
    expect(body('claims.get', await client.claims.get({ params: { claimId } }), 200).claimType).toBeNull();
    const list = body('claims.list', await client.claims.list({ query: { sourceOrderId } }), 200);
    expect(list.edges.map((e) => [e.node.id, e.node.claimType])).toEqual([[claimId, null]]);
    const latest = await fetch(`${server.baseUrl}/v1/claims/${claimId}`, {
      headers: { authorization: `Bearer ${liveToken}`, 'api-version': '2027-01-15' },
    });
    expect(((await latest.json()) as { claimType: string }).claimType).toBe('LOST_IN_TRANSIT');
  });

  it('products', async () => {
    body(
      'products.upsert',
      await client.products.upsert({ params: { productId: 'prev-p' }, body: { name: 'Chair' } }),
      200,
    );
    for (const id of ['prev-c1', 'prev-c2']) {
      body(
        'products.addChild',
        await client.products.addChild({ params: { productId: 'prev-p' }, body: { productId: id, name: id } }),
        200,
      );
    }
    body(
      'products.addChild',
      await client.products.addChild({
        params: { productId: 'prev-p' },
        body: { productId: 'prev-set', name: 'Set', bundleProductIds: ['prev-c1', 'prev-c2'] },
      }),
      200,
    );
    body(
      'products.removeFromBundle',
      await client.products.removeFromBundle({ params: { productId: 'prev-set' }, body: { productIds: ['prev-c2'] } }),
      200,
    );
    body(
      'products.removeChild',
      await client.products.removeChild({ params: { productId: 'prev-p', childId: 'prev-c1' } }),
      200,
    );
    const family = body('products.get', await client.products.get({ params: { productId: 'prev-p' } }), 200);
    expect(family.data.map((p) => p.productId)).toEqual(['prev-p', 'prev-c2', 'prev-set']);
    body('products.remove', await client.products.remove({ params: { productId: 'prev-p' } }), 200);
  });

  it('settings, contexts, cohorts, pricing, widgets and the quote, wrapped in {data}', async () => {
    const settings = body('settings.get', await client.settings.get(), 200);
    expect(settings).toHaveProperty('data');
    expect(body('tracking.readSettings', await client.tracking.readSettings(), 200).data.mode).toBe('off');
    const ctx = body(
      'settings.createContext',
      await client.settings.createContext({ body: { name: 'Prev' } }),
      201,
    ).data;
    const contexts = body('settings.listContexts', await client.settings.listContexts(), 200).data;
    expect(contexts.map((c) => c.id)).toEqual([ctx.id]);
    const params = { contextId: ctx.id };

    const set = body(
      'cohorts.createPriceSet',
      await client.cohorts.createPriceSet({
        params,
        body: {
          variantKey: 'prev',
          type: 'SHIPPING',
          rules: [{ min: 0, max: 1000, terms: { customer: { amount: 3, type: 'fixed' } } }],
        },
      }),
      201,
    ).data;
    expect(set.rules[0]!.terms.customer?.type).toBe('fixed');
    const sets = body(
      'cohorts.listPriceSets',
      await client.cohorts.listPriceSets({ params, query: { variantKey: 'prev' } }),
      200,
    ).data;
    expect(sets.map((s) => s.id)).toEqual([set.id]);
    const setParams = { ...params, priceSetId: set.id };
    expect(body('cohorts.getPriceSet', await client.cohorts.getPriceSet({ params: setParams }), 200).data.id).toBe(
      set.id,
    );
    body(
      'cohorts.updatePriceSet',
      await client.cohorts.updatePriceSet({ params: setParams, body: { automaticallyAddToCart: true } }),
      200,
    );

    const widget = body(
      'cohorts.createWidget',
      await client.cohorts.createWidget({ params, body: { variantKey: 'prev', type: 'CART', config: { a: 1 } } }),
      201,
    ).data;
    const widgetParams = { ...params, widgetConfigId: widget.id };
    expect(body('cohorts.listWidgets', await client.cohorts.listWidgets({ params, query: {} }), 200).data).toHaveLength(
      1,
    );
    expect(body('cohorts.getWidget', await client.cohorts.getWidget({ params: widgetParams }), 200).data.type).toBe(
      'CART',
    );
    body(
      'cohorts.updateWidget',
      await client.cohorts.updateWidget({ params: widgetParams, body: { name: 'Cart' } }),
      200,
    );

    const view = body(
      'settings.updateContext',
      await client.settings.updateContext({ params, query: { variantKey: 'prev' }, body: { sendSmsUpdates: true } }),
      200,
    ).data;
    expect(view.resolvedSettings.sendSmsUpdates).toBe(true);
    expect(body('settings.getContext', await client.settings.getContext({ params, query: {} }), 200).data.id).toBe(
      ctx.id,
    );

    const quote = body(
      'quote.create',
      await client.quote.create({ body: { orderTotal: 10, variantKey: 'prev' } }),
      201,
    );
    expect(quote.data).toMatchObject({ premium: 3, source: 'partner', partnerVariantKey: 'prev' });

    const rules = body('pricing.list', await client.pricing.list(), 200).data;
    const shipping = rules.find((s) => s.type === 'SHIPPING')!;
    const updated = body(
      'pricing.update',
      await client.pricing.update({ params: { ruleSetId: shipping.id }, body: { automaticallyAddToCart: true } }),
      200,
    ).data;
    expect(updated.find((s) => s.id === shipping.id)?.automaticallyAddToCart).toBe(true);

    const widgets = body('widgets.list', await client.widgets.list(), 200).data;
    body(
      'widgets.update',
      await client.widgets.update({ params: { widgetConfigId: widgets[0]!.id }, body: { name: 'Cart' } }),
      200,
    );

    body('cohorts.deleteWidget', await client.cohorts.deleteWidget({ params: widgetParams }), 200);
    body('cohorts.deletePriceSet', await client.cohorts.deletePriceSet({ params: setParams }), 200);
    body('settings.deleteContext', await client.settings.deleteContext({ params }), 200);
  });

  it('analytics (D52)', async () => {
    const query = { from: '2026-01-01', to: '2026-12-31' };
    expect(body('analytics.summary', await client.analytics.summary({ query }), 200).data).toMatchObject(query);
    const series = body(
      'analytics.series',
      await client.analytics.series({ query: { ...query, interval: 'month' } }),
      200,
    );
    expect(series.data.points).toHaveLength(12);
  });

  it('the test helpers, with a test store token', async () => {
    const sourceOrderId = 'prev-test';
    body('orders.upsert', await testClient.orders.upsert({ params: { sourceOrderId }, body: order }), 200);
    const filed = seen('claims.file', await testClient.claims.file({ params: { sourceOrderId }, body: claim }));
    expect(filed.status).toBe(200);
    const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
    const moved = body(
      'testHelpers.advanceClaim',
      await testClient.testHelpers.advanceClaim({ params: { claimId }, body: { claimState: 'OPEN' } }),
      200,
    );
    expect(moved.claimState).toBe('OPEN');
    body(
      'testHelpers.addShopperMessage',
      await testClient.testHelpers.addShopperMessage({ params: { claimId }, body: { message: 'Still waiting' } }),
      200,
    );
    body(
      'testHelpers.recordEvent',
      await testClient.testHelpers.recordEvent({ body: { topic: 'claim/created' } }),
      201,
    );
    body('testHelpers.flushDeliveries', await testClient.testHelpers.flushDeliveries(), 200);
    body('testHelpers.listMail', await testClient.testHelpers.listMail(), 200);
    await injectTrackingEvents(testClient as unknown as V1Client, log, sourceOrderId);
    // D54: the tracking rules as of a time; the store's rules are off, so nothing is filed.
    body(
      'testHelpers.evaluateTracking',
      await testClient.testHelpers.evaluateTracking({ body: { asOf: '2027-01-02T00:00:00Z' } }),
      200,
    );
    body('testHelpers.reset', await testClient.testHelpers.reset(), 200);
  });

  it('answered every route on 2026-12-01, none with a 5xx', () => {
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.version !== '2026-12-01')).toEqual([]);
  });
});

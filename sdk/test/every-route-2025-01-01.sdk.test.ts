import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, createTestStoreOf, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { createClient } from '../src/versions/2025-01-01';
import { answerLog } from './harness/answers';
import {
  claim,
  claimsWorkspace,
  injectTrackingEvents,
  order,
  ordersAndClaims,
  type V1Client,
} from './harness/every-route-v1';

type OldClient = ReturnType<typeof createClient>;

/**
 * Every token operation of API version 2025-01-01 (D44) through the client typed for it,
 * against the real server: each answers as that version does (no `{data}` envelope, price
 * rules reading `flat`, contexts with a `variantKey`, quotes 200, `PUT /v2/settings` 410).
 * With the other SDK tests on the latest version, every versioned operation is called on
 * each version in a full run (sdk/test/harness/route-coverage.ts).
 */
describe('SDK 2025-01-01: every token route, end to end', () => {
  let server: TestServer;
  let client: OldClient;
  /** A token of a test store (D45), for the test helper routes. */
  let testClient: OldClient;
  const log = answerLog();
  const { answers, seen, body } = log;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const owner = await createOwner(server.db, 'sdk-every-route-2025');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    const live = await installWithToken(server, app.clientId, owner.store.id, [...SCOPES]);
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

  it('products, unwrapped', async () => {
    body(
      'products.upsert',
      await client.products.upsert({ params: { productId: 'old-p' }, body: { name: 'Chair' } }),
      200,
    );
    for (const id of ['old-c1', 'old-c2']) {
      body(
        'products.addChild',
        await client.products.addChild({ params: { productId: 'old-p' }, body: { productId: id, name: id } }),
        200,
      );
    }
    body(
      'products.addChild',
      await client.products.addChild({
        params: { productId: 'old-p' },
        body: { productId: 'old-set', name: 'Set', bundleProductIds: ['old-c1', 'old-c2'] },
      }),
      200,
    );
    body(
      'products.removeFromBundle',
      await client.products.removeFromBundle({ params: { productId: 'old-set' }, body: { productIds: ['old-c2'] } }),
      200,
    );
    body(
      'products.removeChild',
      await client.products.removeChild({ params: { productId: 'old-p', childId: 'old-c1' } }),
      200,
    );
    const family = body('products.get', await client.products.get({ params: { productId: 'old-p' } }), 200);
    // No `{data}` envelope on 2025-01-01.
    expect(Array.isArray(family)).toBe(true);
    expect(family.map((p) => p.productId)).toEqual(['old-p', 'old-c2', 'old-set']);
    body('products.remove', await client.products.remove({ params: { productId: 'old-p' } }), 200);
  });

  it('settings, contexts with a variantKey, cohorts, pricing reading flat, widgets, quote 200, settings write 410', async () => {
    const settings = body('settings.get', await client.settings.get(), 200);
    expect(settings).not.toHaveProperty('data');
    expect(body('tracking.readSettings', await client.tracking.readSettings(), 200).mode).toBe('off');
    const ctx = body(
      'settings.createContext',
      await client.settings.createContext({ body: { name: 'Old', variantKey: 'old-a' } }),
      201,
    );
    expect(ctx.variantKey).toBe('old-a');
    const contexts = body('settings.listContexts', await client.settings.listContexts(), 200);
    expect(contexts.map((c) => [c.id, c.variantKey])).toEqual([[ctx.id, 'old-a']]);
    const params = { contextId: ctx.id };

    const set = body(
      'cohorts.createPriceSet',
      await client.cohorts.createPriceSet({
        params,
        body: {
          variantKey: 'old',
          type: 'SHIPPING',
          rules: [{ min: 0, max: 1000, terms: { customer: { amount: 3, type: 'flat' } } }],
        },
      }),
      201,
    );
    expect(set.rules[0]!.terms.customer?.type).toBe('flat');
    const sets = body(
      'cohorts.listPriceSets',
      await client.cohorts.listPriceSets({ params, query: { variantKey: 'old' } }),
      200,
    );
    expect(sets.map((s) => s.id)).toEqual([set.id]);
    const setParams = { ...params, priceSetId: set.id };
    expect(body('cohorts.getPriceSet', await client.cohorts.getPriceSet({ params: setParams }), 200).id).toBe(set.id);
    body(
      'cohorts.updatePriceSet',
      await client.cohorts.updatePriceSet({ params: setParams, body: { automaticallyAddToCart: true } }),
      200,
    );

    const widget = body(
      'cohorts.createWidget',
      await client.cohorts.createWidget({ params, body: { variantKey: 'old', type: 'CART', config: { a: 1 } } }),
      201,
    );
    const widgetParams = { ...params, widgetConfigId: widget.id };
    expect(body('cohorts.listWidgets', await client.cohorts.listWidgets({ params, query: {} }), 200)).toHaveLength(1);
    expect(body('cohorts.getWidget', await client.cohorts.getWidget({ params: widgetParams }), 200).type).toBe('CART');
    body(
      'cohorts.updateWidget',
      await client.cohorts.updateWidget({ params: widgetParams, body: { name: 'Cart' } }),
      200,
    );

    const view = body(
      'settings.updateContext',
      await client.settings.updateContext({ params, query: { variantKey: 'old' }, body: { sendSmsUpdates: true } }),
      200,
    );
    expect(view.variantKey).toBe('old-a');
    expect(view.resolvedSettings.sendSmsUpdates).toBe(true);
    const got = body('settings.getContext', await client.settings.getContext({ params, query: {} }), 200);
    expect(got.variantKey).toBe('old-a');

    const quote = body('quote.create', await client.quote.create({ body: { orderTotal: 10, variantKey: 'old' } }), 200);
    expect(quote).toMatchObject({ premium: 3, source: 'partner', partnerVariantKey: 'old' });

    const rules = body('pricing.list', await client.pricing.list(), 200);
    expect(Array.isArray(rules)).toBe(true);
    const types = rules.flatMap((s) => s.rules.flatMap((r) => [r.terms.customer?.type, r.terms.brand?.type]));
    expect(types.every((t) => t === undefined || t === 'flat' || t === 'percentage')).toBe(true);
    const shipping = rules.find((s) => s.type === 'SHIPPING')!;
    const updated = body(
      'pricing.update',
      await client.pricing.update({ params: { ruleSetId: shipping.id }, body: { automaticallyAddToCart: true } }),
      200,
    );
    expect(updated.find((s) => s.id === shipping.id)?.automaticallyAddToCart).toBe(true);

    const widgets = body('widgets.list', await client.widgets.list(), 200);
    expect(Array.isArray(widgets)).toBe(true);
    body(
      'widgets.update',
      await client.widgets.update({ params: { widgetConfigId: widgets[0]!.id }, body: { name: 'Cart' } }),
      200,
    );

    expect(body('cohorts.deleteWidget', await client.cohorts.deleteWidget({ params: widgetParams }), 200)).toEqual({
      ok: true,
    });
    expect(body('cohorts.deletePriceSet', await client.cohorts.deletePriceSet({ params: setParams }), 200)).toEqual({
      ok: true,
    });
    expect(body('settings.deleteContext', await client.settings.deleteContext({ params }), 200)).toEqual({ ok: true });

    // Only on 2025-01-01, and gone (D44).
    body('settings.replace', await client.settings.replace({ body: {} }), 410);
  });

  it('the test helpers, with a test store token', async () => {
    const sourceOrderId = 'old-test';
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

  it('answered every route on 2025-01-01, none with a 5xx', () => {
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.version !== '2025-01-01')).toEqual([]);
  });
});

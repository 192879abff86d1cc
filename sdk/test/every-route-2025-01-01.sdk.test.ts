import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, createTestStoreOf, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { createClient, type TClaimFile, type TOrderWrite } from '../src/versions/2025-01-01';

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
  const answers: { route: string; status: number; version: string | null }[] = [];

  /** Notes an answer for the checks every answer must pass (no 5xx, served by 2025-01-01). */
  const seen = <R extends { status: number; headers: Headers }>(route: string, res: R): R => {
    answers.push({ route, status: res.status, version: res.headers.get('api-version') });
    return res;
  };
  /** The answer's body, after checking its status. */
  const body = <R extends { status: number; body: unknown; headers: Headers }, S extends R['status']>(
    route: string,
    res: R,
    status: S,
  ): Extract<R, { status: S }>['body'] => {
    seen(route, res);
    if (res.status !== status) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Extract<R, { status: S }>['body'];
  };

  const order: TOrderWrite = {
    sourceOrderNumber: '#2025',
    currency: 'EUR',
    platformId: 'api',
    total: 60,
    premiumPaid: 2,
    sourceCreatedAt: '2026-05-01T10:00:00Z',
    lineItems: [{ sourceItemId: 'mug', quantity: 10, price: 6 }],
  };
  const claim: TClaimFile = {
    email: 'shopper@example.com',
    salesChannel: 'ONLINE',
    claimCategory: 'SHIPPING',
    fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 2, sourceItemId: 'mug' }] }],
    resolution: { desiredMethod: 'STORE_CREDIT' },
  };

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
    const sourceOrderId = 'old-1';
    expect(body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId }, body: order }), 200)).toEqual({
      status: 'ok',
    });
    expect(body('orders.get', await client.orders.get({ params: { sourceOrderId } }), 200)).toMatchObject({
      sourceOrderId,
      currency: 'EUR',
      total: 60,
      premiumPaid: 2,
      lineItems: [{ sourceItemId: 'mug', quantity: 10, price: 6 }],
    });
    const fulfillment = { sourceOrderId, sourceFulfillmentId: 'ful-1' };
    body(
      'orders.upsertFulfillment',
      await client.orders.upsertFulfillment({
        params: fulfillment,
        body: { fulfillmentStatus: 'OUT_FOR_DELIVERY', trackingNumber: ['T1'] },
      }),
      200,
    );
    const fulfillments = body(
      'orders.listFulfillments',
      await client.orders.listFulfillments({ params: { sourceOrderId } }),
      200,
    );
    expect(fulfillments.map((f) => f.sourceFulfillmentId)).toEqual(['ful-1']);
    // Shipment tracking (D54): the fulfillment's number is a package already.
    const tracked = body(
      'tracking.addEvents',
      await client.tracking.addEvents({
        params: fulfillment,
        body: { trackingNumber: 'T1', events: [{ occurredAt: '2026-05-02T10:00:00Z', status: 'delivered' }] },
      }),
      200,
    );
    expect(tracked).toMatchObject({ trackingNumber: 'T1', status: 'delivered' });
    expect(body('tracking.get', await client.tracking.get({ params: fulfillment }), 200)).toEqual([tracked]);
    expect(body('tracking.readSettings', await client.tracking.readSettings(), 200).mode).toBe('off');
    body('orders.cancelFulfillment', await client.orders.cancelFulfillment({ params: fulfillment }), 200);

    const file = async () => {
      const res = await client.claims.file({
        params: { sourceOrderId },
        headers: { 'idempotency-key': `old-${Math.random()}` },
        body: claim,
      });
      expect(body('claims.file', res, 200)).toEqual({ status: 'ok' });
      return res.headers.get('location')!.replace('/v1/claims/', '');
    };
    const id = await file();
    expect(body('claims.get', await client.claims.get({ params: { claimId: id } }), 200)).toMatchObject({
      id,
      claimState: 'NEW',
      sourceOrderId,
      policy: { premiumPaid: 2 },
    });
    const list = body('claims.list', await client.claims.list({ query: { first: 10, sourceOrderId } }), 200);
    expect(list.edges.map((e) => e.node.id)).toEqual([id]);
    body(
      'claims.postMessage',
      await client.claims.postMessage({ params: { claimId: id }, body: { message: 'Hi', senderType: 'brand' } }),
      200,
    );
    const open = body(
      'claims.transition',
      await client.claims.transition({ params: { claimId: id }, body: { claimState: 'OPEN' } }),
      200,
    );
    expect(open.claimState).toBe('OPEN');
    const approved = body(
      'claims.approve',
      await client.claims.approve({
        params: { claimId: id },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 15 }] },
      }),
      200,
    );
    expect(approved.claimState).toBe('APPROVED');
    const other = await file();
    const denied = body(
      'claims.deny',
      await client.claims.deny({ params: { claimId: other }, body: { reason: 'NOT_COVERED' } }),
      200,
    );
    expect(denied.claimState).toBe('DENIED');
    const ofOrder = body('orders.listClaims', await client.orders.listClaims({ params: { sourceOrderId } }), 200);
    expect(ofOrder.map((c) => c.id)).toEqual([id, other]);
    const offline = body(
      'claims.fileOffline',
      await client.claims.fileOffline({
        body: {
          customer: { email: 'walk@example.com' },
          items: [{ name: 'Toaster', price: 30 }],
          warranty: { dateOfPurchase: '2026-04-04' },
          salesChannel: 'IN_STORE',
          claimCategory: 'WARRANTY',
          issueType: 'DEFECTIVE_ITEM',
        },
      }),
      200,
    );
    expect(offline.payload.sourceOrderId).toMatch(/^offline_/);

    body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId: 'old-gone' }, body: order }), 200);
    expect(body('orders.remove', await client.orders.remove({ params: { sourceOrderId: 'old-gone' } }), 200)).toEqual({
      status: 'ok',
    });
    body('orders.get', await client.orders.get({ params: { sourceOrderId: 'old-gone' } }), 404);
  });

  it('the claims workspace (D51): the same answers as the latest version, additive', async () => {
    const sourceOrderId = 'old-workspace';
    body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId }, body: order }), 200);
    const filed = seen('claims.file', await client.claims.file({ params: { sourceOrderId }, body: claim }));
    const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
    const list = body('claims.list', await client.claims.list({ query: { queue: 'to_do', order: 'desc' } }), 200);
    expect(list.edges[0]!.node.id).toBe(claimId);
    const note = body(
      'claims.addNote',
      await client.claims.addNote({ params: { claimId }, body: { note: 'staff only' } }),
      201,
    );
    expect(note.data.note).toBe('staff only');
    const preview = body(
      'claims.previewApproval',
      await client.claims.previewApproval({
        params: { claimId },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 15 }] },
      }),
      200,
    );
    expect(preview.data.storeCredits).toHaveLength(1);
    const timeline = body('claims.getTimeline', await client.claims.getTimeline({ params: { claimId } }), 200);
    expect(timeline.data.map((e) => e.type)).toEqual(['note']);
    // D52: the export is text (CSV) on the earlier version too.
    const csv = body('claims.export', await client.claims.export({ query: { q: claimId } }), 200);
    expect(csv.split('\r\n')[1]).toMatch(new RegExp(`^${claimId},`));
    const orders = body('orders.list', await client.orders.list({ query: { q: '#2025' } }), 200);
    const mine = orders.edges.find((e) => e.node.sourceOrderId === sourceOrderId)!;
    expect(mine.node.lineItems![0]!.claimableQuantity).toBe(10 - 2);
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
    body(
      'orders.upsertFulfillment',
      await testClient.orders.upsertFulfillment({
        params: { sourceOrderId, sourceFulfillmentId: 'tf-1' },
        body: { fulfillmentStatus: 'IN_TRANSIT', trackingNumber: ['TT1'] },
      }),
      200,
    );
    const injected = body(
      'testHelpers.addTrackingEvents',
      await testClient.testHelpers.addTrackingEvents({
        body: {
          sourceOrderId,
          sourceFulfillmentId: 'tf-1',
          trackingNumber: 'TT1',
          events: [{ occurredAt: '2026-05-03T10:00:00Z', status: 'lost' }],
        },
      }),
      200,
    );
    expect(injected.status).toBe('lost');
    // D54: the rules' evaluation is not served yet (501), the only 5xx a route answers on purpose.
    const evaluated = await testClient.testHelpers.evaluateTracking({ body: { asOf: '2026-06-01T00:00:00Z' } });
    expect(evaluated.status).toBe(501);
    body('testHelpers.reset', await testClient.testHelpers.reset(), 200);
  });

  it('answered every route on 2025-01-01, none with a 5xx', () => {
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.filter((a) => a.version !== '2025-01-01')).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { type Client, createClient, unwrap } from '../src/index';

/** Orders, fulfillments and products (D18-D21, D33) through the SDK, against the real server. */
describe('SDK: orders, fulfillments, products', () => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer();
    const owner = await createOwner(server.db, 'sdkcommerce');
    const app = await createApp(server, owner.user.id, { requestedScopes: ['order:update', 'product:update'] });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, [
      'order:update',
      'product:update',
    ]);
    client = createClient({ baseUrl: server.baseUrl, accessToken });
  });
  afterAll(async () => {
    await server.close();
  });

  it('writes, reads and deletes an order with protection', async () => {
    const put = await client.orders.upsert({
      params: { sourceOrderId: 'sdk-1' },
      body: {
        sourceOrderNumber: '#42',
        currency: 'GBP',
        platformId: 'woocommerce',
        total: 80,
        premiumPaid: 1.5,
        sourceCreatedAt: '2026-04-01T09:30:00Z',
        lineItems: [{ sourceItemId: 'li-1', quantity: 2, price: 40 }],
      },
    });
    expect(unwrap(put)).toEqual({ status: 'ok' });
    const order = unwrap(await client.orders.get({ params: { sourceOrderId: 'sdk-1' } }));
    expect(order).toMatchObject({
      sourceOrderId: 'sdk-1',
      currency: 'GBP',
      total: 80,
      premiumPaid: 1.5,
      protection: { status: 'ACTIVE' },
      lineItems: [{ sourceItemId: 'li-1', quantity: 2, price: 40 }],
    });
    expect(unwrap(await client.orders.remove({ params: { sourceOrderId: 'sdk-1' } }))).toEqual({ status: 'ok' });
    const gone = await client.orders.get({ params: { sourceOrderId: 'sdk-1' } });
    expect(gone.status).toBe(404);
  });

  it('writes, lists and cancels fulfillments', async () => {
    unwrap(
      await client.orders.upsert({
        params: { sourceOrderId: 'sdk-2' },
        body: {
          sourceOrderNumber: '#43',
          currency: 'USD',
          platformId: 'api',
          total: 10,
          sourceCreatedAt: '2026-04-01T09:30:00Z',
        },
      }),
    );
    const params = { sourceOrderId: 'sdk-2', sourceFulfillmentId: 'ful-1' };
    unwrap(
      await client.orders.upsertFulfillment({
        params,
        body: { fulfillmentStatus: 'OUT_FOR_DELIVERY', trackingNumber: ['T1'] },
      }),
    );
    expect(unwrap(await client.orders.cancelFulfillment({ params }))).toEqual({ status: 'ok' });
    const list = unwrap(await client.orders.listFulfillments({ params: { sourceOrderId: 'sdk-2' } }));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ sourceFulfillmentId: 'ful-1', fulfillmentStatus: 'OUT_FOR_DELIVERY' });
    expect(list[0]!.cancelledAt).not.toBeNull();
  });

  it('manages a product, its children and a bundle; replays a child create by Idempotency-Key', async () => {
    unwrap(await client.products.upsert({ params: { productId: 'sdk-p' }, body: { name: 'Chair' } }));
    for (const id of ['sdk-c1', 'sdk-c2']) {
      unwrap(await client.products.addChild({ params: { productId: 'sdk-p' }, body: { productId: id, name: id } }));
    }
    const bundle = {
      params: { productId: 'sdk-p' },
      body: { productId: 'sdk-set', name: 'Set', bundleProductIds: ['sdk-c1', 'sdk-c2'] },
      headers: { 'idempotency-key': 'sdk-bundle-1' },
    };
    const first = await client.products.addChild(bundle);
    const again = await client.products.addChild(bundle);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    unwrap(
      await client.products.removeFromBundle({ params: { productId: 'sdk-set' }, body: { productIds: ['sdk-c2'] } }),
    );
    unwrap(await client.products.removeChild({ params: { productId: 'sdk-p', childId: 'sdk-c1' } }));
    const family = unwrap(await client.products.get({ params: { productId: 'sdk-p' } })).data;
    expect(family.map((p) => [p.productId, p.bundleProductIds])).toEqual([
      ['sdk-p', []],
      ['sdk-c2', []],
      ['sdk-set', []],
    ]);
    unwrap(await client.products.remove({ params: { productId: 'sdk-p' } }));
    expect((await client.products.get({ params: { productId: 'sdk-p' } })).status).toBe(404);
  });
});

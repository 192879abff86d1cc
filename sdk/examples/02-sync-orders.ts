/**
 * 02 — Sync an order and its fulfillment from your platform (client credentials).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/02-sync-orders.ts
 *
 * PUTs create or replace, so sending the same order again is harmless (and retried safely).
 * In your code, import from '@protection-service/sdk'.
 */
import { clientCredentials, createClient, type TOrderWrite, unwrap } from '../src/index';
import { env } from './env';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({ baseUrl, auth: clientCredentials({ clientId, clientSecret, storeId }) });

const sourceOrderId = `example-${Date.now()}`;
const order: TOrderWrite = {
  sourceOrderNumber: '#1001',
  currency: 'USD',
  platformId: 'api',
  total: 54.5,
  premiumPaid: 2.5, // > 0: the order gets active protection (D19)
  sourceCreatedAt: new Date().toISOString(),
  customerEmail: 'shopper@example.com',
  lineItems: [
    {
      sourceItemId: 'li-1',
      sourceProductId: 'mug',
      sourceVariantId: 'mug-blue',
      name: 'Blue mug',
      sku: 'MUG-B',
      quantity: 2,
      price: 26,
      isShippable: true,
    },
  ],
};
unwrap(await client.orders.upsert({ params: { sourceOrderId }, body: order }));
unwrap(await client.orders.upsert({ params: { sourceOrderId }, body: order })); // the same again: no change

unwrap(
  await client.orders.upsertFulfillment({
    params: { sourceOrderId, sourceFulfillmentId: 'ful-1' },
    body: {
      fulfillmentStatus: 'IN_TRANSIT',
      sourceItemIds: [{ sourceItemId: 'li-1', quantity: 2 }],
      trackingCompany: 'UPS',
      trackingNumber: ['1Z999AA10123456784'],
    },
  }),
);

const stored = unwrap(await client.orders.get({ params: { sourceOrderId } }));
const fulfillments = unwrap(await client.orders.listFulfillments({ params: { sourceOrderId } }));
console.log(`order ${stored.sourceOrderId}: protection ${stored.protection.status}`);
console.log(`fulfillments: ${fulfillments.map((f) => `${f.sourceFulfillmentId} ${f.fulfillmentStatus}`).join(', ')}`);

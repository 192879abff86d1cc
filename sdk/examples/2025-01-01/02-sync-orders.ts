/**
 * 02, in its 2025-01-01 form — Sync an order and its fulfillment from your platform (client
 * credentials), as a partner still on API version 2025-01-01 (D44) writes it. How to upgrade to
 * the latest version: `/docs/versions` (the latest form is sdk/examples/02-sync-orders.ts).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/2025-01-01/02-sync-orders.ts
 *
 * The `/v1` order routes read the same in both versions; on 2025-01-01 their answers say that
 * the version is deprecated. In your code, import from '@protection-service/sdk/versions/2025-01-01'
 * and '@protection-service/sdk'.
 */
import { clientCredentials, unwrap } from '../../src/index';
import { createClient, type TOrderWrite } from '../../src/versions/2025-01-01';
import { env } from '../env';
import { logDeprecation } from './deprecation';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({
  baseUrl,
  auth: clientCredentials({ clientId, clientSecret, storeId }),
  middleware: [logDeprecation],
});

const sourceOrderId = `example-${Date.now()}`;
const order: TOrderWrite = {
  sourceOrderNumber: '#1001',
  currency: 'USD',
  platformId: 'api',
  total: 54.5,
  premiumPaid: 2.5, // > 0: the order gets active protection (D19)
  sourceCreatedAt: new Date().toISOString(),
  customerEmail: 'shopper@example.com',
  lineItems: [{ sourceItemId: 'li-1', sourceProductId: 'mug', name: 'Blue mug', quantity: 2, price: 26 }],
};
unwrap(await client.orders.upsert({ params: { sourceOrderId }, body: order }));
unwrap(await client.orders.upsert({ params: { sourceOrderId }, body: order })); // the same again: no change

unwrap(
  await client.orders.upsertFulfillment({
    params: { sourceOrderId, sourceFulfillmentId: 'ful-1' },
    body: { fulfillmentStatus: 'IN_TRANSIT', sourceItemIds: [{ sourceItemId: 'li-1', quantity: 2 }] },
  }),
);

const stored = unwrap(await client.orders.get({ params: { sourceOrderId } }));
const fulfillments = unwrap(await client.orders.listFulfillments({ params: { sourceOrderId } }));
console.log(`order ${stored.sourceOrderId}: protection ${stored.protection.status}`);
console.log(`fulfillments: ${fulfillments.map((f) => `${f.sourceFulfillmentId} ${f.fulfillmentStatus}`).join(', ')}`);

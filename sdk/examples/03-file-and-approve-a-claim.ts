/**
 * 03 — A shopper reports a damaged item: file the claim, read it, and approve a refund.
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/03-file-and-approve-a-claim.ts
 *
 * Filing is a POST: the SDK gives it an Idempotency-Key, so a retry after a lost answer files
 * one claim, not two (D33). Here the key is our own ticket id, so that our own retries (after
 * a crash, from a queue) are safe as well. In your code, import from '@protection-service/sdk'.
 */
import { clientCredentials, createClient, ProtectionApiError, unwrap } from '../src/index';
import { env } from './env';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({ baseUrl, auth: clientCredentials({ clientId, clientSecret, storeId }) });

const sourceOrderId = `claim-example-${Date.now()}`;
unwrap(
  await client.orders.upsert({
    params: { sourceOrderId },
    body: {
      sourceOrderNumber: '#2001',
      currency: 'USD',
      platformId: 'api',
      total: 40,
      premiumPaid: 1.99,
      sourceCreatedAt: new Date().toISOString(),
      lineItems: [
        {
          sourceItemId: 'li-1',
          sourceProductId: 'vase',
          sourceVariantId: 'vase-1',
          name: 'Vase',
          sku: 'VASE',
          quantity: 1,
          price: 40,
          isShippable: true,
        },
      ],
    },
  }),
);

const filing = {
  params: { sourceOrderId },
  headers: { 'idempotency-key': `ticket-${sourceOrderId}` },
  body: {
    email: 'shopper@example.com',
    salesChannel: 'ONLINE' as const,
    claimCategory: 'SHIPPING' as const,
    resolution: { desiredMethod: 'REFUND' as const },
    fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED' as const, sourceItemId: 'li-1', quantity: 1 }] }],
  },
};
const filed = await client.claims.file(filing);
unwrap(filed);
// The answer is {status: 'ok'}; the new claim is named by the Location header.
const claimId = filed.headers.get('location')!.split('/').pop()!;
const again = await client.claims.file(filing); // the same key again: the first answer, nothing new
console.log(`filed ${claimId}; sent twice, replayed: ${again.headers.get('idempotent-replayed')}`);

const claim = unwrap(await client.claims.get({ params: { claimId } }));
console.log(`claim ${claim.id} is ${claim.claimState}, linked to policy: ${claim.policyId !== null}`);

const approved = unwrap(
  await client.claims.approve({
    params: { claimId },
    body: { resolutions: [{ type: 'REFUND', paidValue: 40, paidCurrency: 'USD', details: 'Arrived broken' }] },
  }),
);
console.log(`approved: ${approved.claimState}, resolutions: ${approved.claimResolutions.length}`);

// A move the state machine does not allow answers 409 and changes nothing (D22).
const denied = await client.claims.deny({ params: { claimId }, body: { reason: 'NOT_COVERED' } });
if (denied.status === 409) console.log(`deny after approve: 409 ${denied.body.message}`);
else throw new ProtectionApiError(denied.status, denied.body, denied.headers);

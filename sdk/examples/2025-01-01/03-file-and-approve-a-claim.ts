/**
 * 03, in its 2025-01-01 form — File a shopper's claim under your own idempotency key, read it,
 * and approve a refund, as a partner still on API version 2025-01-01 (D44) writes it. How to
 * upgrade to the latest version: `/docs/versions` (the latest form is
 * sdk/examples/03-file-and-approve-a-claim.ts).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/2025-01-01/03-file-and-approve-a-claim.ts
 *
 * The `/v1` claim routes read the same in both versions; a 2025-01-01 error answer (the 409
 * below) keeps the error shape. In your code, import from
 * '@protection-service/sdk/versions/2025-01-01' and '@protection-service/sdk'.
 */
import { clientCredentials, ProtectionApiError, unwrap } from '../../src/index';
import { createClient, type TClaimFile } from '../../src/versions/2025-01-01';
import { env } from '../env';
import { logDeprecation } from './deprecation';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({
  baseUrl,
  auth: clientCredentials({ clientId, clientSecret, storeId }),
  middleware: [logDeprecation],
});

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
      lineItems: [{ sourceItemId: 'li-1', sourceProductId: 'vase', name: 'Vase', quantity: 1, price: 40 }],
    },
  }),
);

const claim: TClaimFile = {
  email: 'shopper@example.com',
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  resolution: { desiredMethod: 'REFUND' },
  fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', sourceItemId: 'li-1', quantity: 1 }] }],
};
const filing = { params: { sourceOrderId }, headers: { 'idempotency-key': `ticket-${sourceOrderId}` }, body: claim };
const filed = await client.claims.file(filing);
unwrap(filed);
// The answer is {status: 'ok'}; the new claim is named by the Location header.
const claimId = filed.headers.get('location')!.split('/').pop()!;
const again = await client.claims.file(filing); // the same key again: the first answer, nothing new
console.log(`filed ${claimId}; sent twice, replayed: ${again.headers.get('idempotent-replayed')}`);

const read = unwrap(await client.claims.get({ params: { claimId } }));
console.log(`claim ${read.id} is ${read.claimState}, linked to policy: ${read.policyId !== null}`);

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

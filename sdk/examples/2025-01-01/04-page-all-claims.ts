/**
 * 04, in its 2025-01-01 form — Read every claim of the store, page after page (cursor paging,
 * D24), as a partner still on API version 2025-01-01 (D44) writes it. How to upgrade to the
 * latest version: `/docs/versions` (the latest form is sdk/examples/04-page-all-claims.ts).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/2025-01-01/04-page-all-claims.ts
 *
 * paginate() takes the 2025-01-01 client's list operations as they are. In your code, import
 * from '@protection-service/sdk/versions/2025-01-01' and '@protection-service/sdk'.
 */
import { clientCredentials, paginate } from '../../src/index';
import { createClient, type TClaimState } from '../../src/versions/2025-01-01';
import { env } from '../env';
import { logDeprecation } from './deprecation';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({
  baseUrl,
  auth: clientCredentials({ clientId, clientSecret, storeId }),
  middleware: [logDeprecation],
});

const byState = new Map<TClaimState, number>();
let total = 0;
for await (const claim of paginate(client.claims.list, { query: { first: 2 } })) {
  byState.set(claim.claimState, (byState.get(claim.claimState) ?? 0) + 1);
  total += 1;
}
console.log(`claims: ${total}`);
for (const [state, count] of byState) console.log(`  ${state}: ${count}`);

/**
 * 04 — Read every claim of the store, page after page (cursor paging, D24).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/04-page-all-claims.ts
 *
 * paginate() follows pageInfo.endCursor and fetches the next page only when the loop gets
 * there. In your code, import from '@protection-service/sdk'.
 */
import { clientCredentials, createClient, paginate, type TClaimState } from '../src/index';
import { env } from './env';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({ baseUrl, auth: clientCredentials({ clientId, clientSecret, storeId }) });

const byState = new Map<TClaimState, number>();
let total = 0;
for await (const claim of paginate(client.claims.list, { query: { first: 2 } })) {
  byState.set(claim.claimState, (byState.get(claim.claimState) ?? 0) + 1);
  total += 1;
}
console.log(`claims: ${total}`);
for (const [state, count] of byState) console.log(`  ${state}: ${count}`);

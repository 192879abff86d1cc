/**
 * 01, in its 2025-01-01 form — Install an app on a store and keep its tokens fresh, as a partner
 * still on API version 2025-01-01 (D44) writes it. How to upgrade to the latest version:
 * `/docs/versions` (the latest form is sdk/examples/01-install-and-tokens.ts).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   SVC_DASHBOARD_TOKEN=… SVC_REDIRECT_URI=https://app.example.com/callback \
 *   node --import tsx sdk/examples/2025-01-01/01-install-and-tokens.ts
 *
 * The install (consent, code exchange, refresh) has no version; the store's settings do, and
 * on 2025-01-01 `GET /v2/settings` answers the settings themselves, without `{data}`. In your
 * code, import from '@protection-service/sdk/versions/2025-01-01' and '@protection-service/sdk'.
 */
import { randomBytes } from 'node:crypto';
import { authorizationCode, createPkcePair, exchangeCode, type Tokens, unwrap } from '../../src/index';
import { createClient } from '../../src/versions/2025-01-01';
import { env } from '../env';
import { logDeprecation } from './deprecation';

const { baseUrl, clientId, clientSecret, storeId, redirectUri, dashboardToken } = env();

// 1. Your app starts the install: a PKCE pair and a state, both kept for the redirect.
const pkce = await createPkcePair();
const state = randomBytes(16).toString('hex');

// 2. The merchant approves (the dashboard does this; its routes have no version, and answer {data}).
const merchant = createClient({ baseUrl, accessToken: dashboardToken });
const consent = unwrap(
  await merchant.oauth.approve({
    body: { clientId, redirectUri, storeId, state, codeChallenge: pkce.challenge, codeChallengeMethod: pkce.method },
  }),
).data;
const redirect = new URL(consent.redirectUri);

// 3. Your redirect handler checks the state and exchanges the code, once.
if (redirect.searchParams.get('state') !== state) throw new Error('state mismatch: not our install');
const tokens = await exchangeCode({
  baseUrl,
  clientId,
  clientSecret,
  code: redirect.searchParams.get('code')!,
  redirectUri,
  codeVerifier: pkce.verifier,
});
console.log('installed with scopes:', tokens.scopes.join(' '));

// 4. Store the tokens; the provider refreshes them and hands you each new pair to store.
const store = new Map<string, Tokens>([[storeId, tokens]]);
const client = createClient({
  baseUrl,
  middleware: [logDeprecation],
  auth: authorizationCode({
    clientId,
    clientSecret,
    // Pretend the access token is stale, so the first call refreshes.
    tokens: { refreshToken: store.get(storeId)!.refreshToken },
    onTokens: (fresh) => {
      store.set(storeId, fresh);
      console.log('refreshed: the new refresh token replaces the old one');
    },
  }),
});
const settings = unwrap(await client.settings.get()); // the settings, not {data: settings}
console.log('store credit type:', settings.storeCreditType);
console.log('refresh token rotated:', store.get(storeId)!.refreshToken !== tokens.refreshToken);

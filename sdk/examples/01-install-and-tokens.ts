/**
 * 01 — Install an app on a store and keep its tokens fresh (authorization code with PKCE,
 * then refresh-token rotation).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   SVC_DASHBOARD_TOKEN=… SVC_REDIRECT_URI=https://app.example.com/callback \
 *   node --import tsx sdk/examples/01-install-and-tokens.ts
 *
 * In a real app the merchant approves the install in the dashboard and the service redirects
 * to your redirect URI with `code` and `state`; here the dashboard token plays the merchant.
 * In your code, import from '@protection-service/sdk'.
 */
import { randomBytes } from 'node:crypto';
import { authorizationCode, createClient, createPkcePair, exchangeCode, type Tokens, unwrap } from '../src/index';
import { env } from './env';

const { baseUrl, clientId, clientSecret, storeId, redirectUri, dashboardToken } = env();

// 1. Your app starts the install: a PKCE pair and a state, both kept for the redirect.
const pkce = await createPkcePair();
const state = randomBytes(16).toString('hex');

// 2. The merchant approves (the dashboard does this) and is redirected with ?code=…&state=….
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
const settings = unwrap(await client.settings.get()).data;
console.log('store credit type:', settings.storeCreditType);
console.log('refresh token rotated:', store.get(storeId)!.refreshToken !== tokens.refreshToken);

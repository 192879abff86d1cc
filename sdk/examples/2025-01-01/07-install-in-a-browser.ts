/**
 * 07, in its 2025-01-01 form — Install in a browser, as merchants do (D40), then read the store's
 * settings, as a partner still on API version 2025-01-01 (D44) writes it. How to upgrade to the
 * latest version: `/docs/versions` (the latest form is sdk/examples/07-install-in-a-browser.ts).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… \
 *   SVC_BROWSER_REDIRECT_URI=http://127.0.0.1:8787/callback \
 *   SVC_MERCHANT_EMAIL=… SVC_MERCHANT_PASSWORD=… node --import tsx sdk/examples/2025-01-01/07-install-in-a-browser.ts
 *
 * The install (pages, redirect, code exchange) has no version; the first call with the new token
 * does, and on 2025-01-01 `GET /v2/settings` answers the settings themselves, without `{data}`.
 * Headless Chromium (CHROMIUM_PATH, default /usr/bin/chromium) plays the merchant. In your code,
 * import from '@protection-service/sdk/versions/2025-01-01' and '@protection-service/sdk'.
 */
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { authorizeUrl, exchangeCode, type Tokens, unwrap } from '../../src/index';
import { createClient } from '../../src/versions/2025-01-01';
import { env } from '../env';
import { logDeprecation } from './deprecation';

const { baseUrl, clientId, clientSecret } = env();
const redirectUri = process.env.SVC_BROWSER_REDIRECT_URI ?? 'http://127.0.0.1:8787/callback';
const merchant = { email: process.env.SVC_MERCHANT_EMAIL ?? '', password: process.env.SVC_MERCHANT_PASSWORD ?? '' };

// 1. Your app starts the install: the URL, with a PKCE pair and a state to keep for the redirect.
const install = await authorizeUrl({ baseUrl, clientId, redirectUri });

// 2. Your redirect handler: check the state, then exchange the code, once.
const callback = new URL(redirectUri);
let done: (tokens: Tokens) => void;
let failed: (error: Error) => void;
const installed = new Promise<Tokens>((resolve, reject) => {
  done = resolve;
  failed = reject;
});
const handler = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', redirectUri);
  if (url.pathname !== callback.pathname) return void res.writeHead(404).end();
  try {
    if (url.searchParams.get('state') !== install.state) throw new Error('state mismatch: not our install');
    const error = url.searchParams.get('error');
    if (error) throw new Error(`the install did not happen: ${error}`); // access_denied: the merchant cancelled
    const tokens = await exchangeCode({
      baseUrl,
      clientId,
      clientSecret,
      code: url.searchParams.get('code')!,
      redirectUri,
      codeVerifier: install.codeVerifier,
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Installed. You can close this tab.');
    done(tokens);
  } catch (e) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('The install failed.');
    failed(e as Error);
  }
});
await new Promise<void>((resolve) => handler.listen(Number(callback.port), callback.hostname, resolve));

// 3. The merchant's browser: the service's sign-in page, then its consent page.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  await page.goto(install.url);
  await page.getByLabel('Email').fill(merchant.email);
  await page.getByLabel('Password').fill(merchant.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Install' }).click();
  const tokens = await installed;
  await page.waitForURL((u) => u.pathname === callback.pathname);
  console.log('merchant saw:', await page.locator('body').innerText());
  console.log('installed with scopes:', tokens.scopes.join(' '));

  // 4. The app works on the store with its new token.
  const client = createClient({ baseUrl, accessToken: tokens.accessToken, middleware: [logDeprecation] });
  const settings = unwrap(await client.settings.get()); // the settings, not {data: settings}
  console.log('store credit type:', settings.storeCreditType);
} finally {
  await browser.close();
  handler.close();
}

/**
 * 07 — Install in a browser, as merchants do: your app sends the merchant to the service's
 * authorization page (D40), the merchant signs in and clicks Install, and your redirect handler
 * checks the state and exchanges the code.
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… \
 *   SVC_BROWSER_REDIRECT_URI=http://127.0.0.1:8787/callback \
 *   SVC_MERCHANT_EMAIL=… SVC_MERCHANT_PASSWORD=… node --import tsx sdk/examples/07-install-in-a-browser.ts
 *
 * The redirect URI must be one the app registered, exactly. Here headless Chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium, driven by playwright-core) plays the merchant;
 * in your app, the merchant's own browser does. In your code, import from '@protection-service/sdk'.
 */
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { authorizeUrl, createClient, exchangeCode, type Tokens, unwrap } from '../src/index';
import { env } from './env';

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
  await page
    .getByRole('button', { name: 'Install' })
    .click()
    .catch(async (e: unknown) => {
      // What the merchant saw instead of the consent page: a refused sign-in, an error page.
      console.error(`no Install button at ${page.url()}:\n${await page.locator('body').innerText()}`);
      throw e;
    });
  const tokens = await installed;
  await page.waitForURL((u) => u.pathname === callback.pathname);
  console.log('merchant saw:', await page.locator('body').innerText());
  console.log('installed with scopes:', tokens.scopes.join(' '));

  // 4. The app works on the store with its new token.
  const client = createClient({ baseUrl, accessToken: tokens.accessToken });
  const settings = unwrap(await client.settings.get()).data;
  console.log('store credit type:', settings.storeCreditType);
} finally {
  await browser.close();
  handler.close();
}

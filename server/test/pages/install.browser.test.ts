import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/domain/identity/stores';
import { createUser } from '../../src/domain/identity/users';
import {
  CHROMIUM,
  expectAccessible,
  expectFormsCarryCsrf,
  launchChromium,
  NO_CHROMIUM,
  screenshots,
} from '../harness/browser';
import { bearer, createApp, createOwner, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';
import { type Receiver, startReceiver } from '../harness/webhooks';

/**
 * D40 in headless Chromium: a partner installs its app with nothing but standard OAuth — a
 * real client library (oauth4webapi) builds the request with PKCE and state, the merchant
 * signs in and consents in the browser, and the library exchanges the code.
 */
if (!CHROMIUM) console.warn(`[pages] install browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the install consent flow in headless Chromium (D40)', () => {
  let server: TestServer;
  let partner: Receiver;
  let browser: Browser;
  let owner: Owner;
  let app: { clientId: string; clientSecret: string };
  let callback: string;
  let oauth: typeof import('oauth4webapi');
  let as: import('oauth4webapi').AuthorizationServer;

  beforeAll(async () => {
    server = await startTestServer();
    // The partner's redirect handler: any answer will do, the test reads the browser's URL.
    partner = await startReceiver();
    callback = `${partner.url}/callback`;
    owner = await createOwner(server.db, 'install');
    app = await createApp(server, owner.user.id, {
      name: 'Parcel Guard',
      redirectUris: [callback],
      requestedScopes: ['order:read', 'claim:read', 'store:read'],
    });
    oauth = await import('oauth4webapi');
    const issuer = new URL(server.baseUrl);
    const discovery = await oauth.discoveryRequest(issuer, {
      algorithm: 'oauth2',
      [oauth.allowInsecureRequests]: true,
    });
    as = await oauth.processDiscoveryResponse(issuer, discovery);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await partner?.close();
    await server?.close();
  });

  /** The authorization request a partner's code builds with the library: PKCE S256 and a state. */
  async function start(clientId = app.clientId, redirectUri = callback) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', 'order:read claim:read');
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { url: url.toString(), verifier, state };
  }

  async function signIn(page: Page, who: { email: string; password: string }) {
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Sign in to install/);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The next page has the same address: wait for its heading instead.
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 10_000 })
      .not.toMatch(/^Sign in to install/);
    await page.waitForLoadState();
  }

  async function newPage(options: { bypassCSP?: boolean } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
    return context.newPage();
  }

  it('installs with oauth4webapi: PKCE, sign-in, consent, code exchange, and the token works', async () => {
    const { url, verifier, state } = await start();
    const page = await newPage();
    try {
      const first = await page.goto(url);
      expect(first!.status()).toBe(200);
      await screenshots(page, 'install-sign-in');
      await expectAccessible(browser, page, 'sign-in');
      await expectFormsCarryCsrf(page);
      await signIn(page, { email: owner.user.email, password: owner.password });

      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Install Parcel Guard?');
      const text = await page.locator('main').innerText();
      expect(text).toContain(owner.store.name);
      expect(text).toContain('Read orders and their fulfillments');
      expect(text).toMatch(/claim:read/);
      expect(text).not.toContain('store:read'); // requested by the app, not by this request
      await screenshots(page, 'install-consent');
      await expectAccessible(browser, page, 'consent');
      await expectFormsCarryCsrf(page);

      await page.getByRole('button', { name: 'Install' }).click();
      await page.waitForURL((u) => u.href.startsWith(callback));
      const params = oauth.validateAuthResponse(as, { client_id: app.clientId }, new URL(page.url()), state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        { client_id: app.clientId },
        oauth.ClientSecretPost(app.clientSecret),
        params,
        callback,
        verifier,
        { [oauth.allowInsecureRequests]: true },
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId }, response);
      expect(tokens.scope).toBe('order:read claim:read');
      const read = await server.request('/v1/orders/no-such-order', { headers: bearer(tokens.access_token) });
      expect(read.status).toBe(404); // authenticated and allowed; the order does not exist
      const list = await server.request('/v1/claims', { headers: bearer(tokens.access_token) });
      expect(list.status).toBe(200);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('lets a user of several stores choose one, and installs there', async () => {
    const first = await createStore(server.db, { name: 'Alpha Outfitters', domain: 'alpha-outfitters.example.com' });
    const second = await createStore(server.db, { name: 'Beta Bikes', domain: 'beta-bikes.example.com' });
    const password = 'correct horse battery staple';
    const user = await createUser(server.db, {
      email: 'two-stores@example.com',
      password,
      storeIds: [first.id, second.id],
    });
    const { url, state } = await start();
    const page = await newPage();
    try {
      await page.goto(url);
      await signIn(page, { email: user.email, password });
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Install Parcel Guard on which store?');
      await screenshots(page, 'install-store-choice');
      await expectAccessible(browser, page, 'store choice');
      await expectFormsCarryCsrf(page);
      await page.getByLabel(/Beta Bikes/).check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Install Parcel Guard?');
      expect(await page.locator('main').innerText()).toContain('Beta Bikes');
      await page.getByRole('button', { name: 'Install' }).click();
      await page.waitForURL((u) => u.href.startsWith(callback));
      expect(new URL(page.url()).searchParams.get('state')).toBe(state);
      const installed = await server.db
        .selectFrom('installations')
        .select('storeId')
        .where('clientId', '=', app.clientId)
        .where('storeId', '=', second.id)
        .execute();
      expect(installed).toHaveLength(1);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('Cancel sends the browser back with error=access_denied and the state', async () => {
    const { url, state } = await start();
    const page = await newPage();
    try {
      await page.goto(url);
      await signIn(page, { email: owner.user.email, password: owner.password });
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL((u) => u.href.startsWith(callback));
      const back = new URL(page.url());
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe(state);
      expect(back.searchParams.get('code')).toBeNull();
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('shows an error page for a redirect URI the app did not register, and never goes there', async () => {
    const evil = `${partner.url}/not-registered`;
    const { url } = await start(app.clientId, evil);
    const page = await newPage();
    const visited: string[] = [];
    page.on('request', (r) => visited.push(r.url()));
    try {
      const res = await page.goto(url);
      expect(res!.status()).toBe(400);
      expect(page.url()).toBe(url);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This install link does not work');
      expect(visited.filter((u) => u.startsWith(partner.url))).toEqual([]);
      await screenshots(page, 'install-error');
      await expectAccessible(browser, page, 'error page');
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('refuses a consent whose CSRF token was forged, and redirects nowhere', async () => {
    const { url } = await start();
    const page = await newPage();
    try {
      await page.goto(url);
      await signIn(page, { email: owner.user.email, password: owner.password });
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Install Parcel Guard?');
      // The form leaves the browser with another CSRF token in place of the session's.
      await page.route('**/v1/oauth/authorize/consent', (route) => {
        const form = new URLSearchParams(route.request().postData() ?? '');
        form.set('csrf', `${form.get('csrf')!.slice(0, -4)}AAAA`);
        return route.continue({ postData: form.toString() });
      });
      const callbacks = () => partner.received.filter((r) => r.path.startsWith('/callback')).length;
      const before = callbacks();
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/v1/oauth/authorize/consent')),
        page.getByRole('button', { name: 'Install' }).click(),
      ]);
      expect(answer.status()).toBe(403);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('This form has expired');
      expect(callbacks()).toBe(before);
      await screenshots(page, 'install-forged-csrf');
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('refuses to be framed by another site', async () => {
    const { url } = await start();
    const page = await newPage();
    try {
      // A page of another origin (the partner's port) that frames the authorization endpoint.
      partner.respond('/framing', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>framing</title><iframe src="${url.replaceAll('&', '&amp;')}"></iframe>`);
      });
      const framed = page.waitForResponse((r) => r.url().startsWith(`${server.baseUrl}/v1/oauth/authorize?`));
      await page.goto(`${partner.url}/framing`);
      const answer = await framed;
      expect(answer.headers()['x-frame-options']).toBe('DENY');
      expect(answer.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      await page.waitForTimeout(300);
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      // Chromium replaced the page with its own error document: no sign-in form inside.
      expect(await frame.locator('input[name="password"]').count()).toBe(0);
      expect(frame.url()).not.toBe(url);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('shows an app named <img src=x onerror=alert(1)> as text, and no dialog opens', async () => {
    const hostile = await createApp(server, owner.user.id, {
      name: '<img src=x onerror=alert(1)>',
      redirectUris: [callback],
      requestedScopes: ['order:read'],
    });
    const { url } = await start(hostile.clientId);
    // No content policy in this context: the escaping alone must keep the markup inert.
    const page = await newPage({ bypassCSP: true });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(url);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        'Sign in to install <img src=x onerror=alert(1)>',
      );
      await signIn(page, { email: owner.user.email, password: owner.password });
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Install <img src=x onerror=alert(1)>?');
      expect(await page.locator('img').count()).toBe(0);
      await page.waitForTimeout(300);
      expect(dialogs).toEqual([]);
      await screenshots(page, 'install-hostile-name');
    } finally {
      await page.context().close();
    }
  }, 90_000);
});

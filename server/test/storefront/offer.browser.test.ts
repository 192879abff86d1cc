import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SCOPES, type Scope } from '@protection-service/contract';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/domain/identity/stores';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { answered, createApp, createOwner, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D55's <protection-offer> in headless Chromium, on a shop page of another origin that knows
 * nothing of the service but one script tag and one element, under a CSP whose script-src and
 * connect-src name only the service.
 */
if (!CHROMIUM) console.warn(`[storefront] offer browser tests skipped: ${NO_CHROMIUM}`);

const AXE_SOURCE = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** What the shop's page head carries besides the defaults: the script tag's attributes, a stylesheet of its own. */
interface Head {
  script?: string | undefined;
  css?: string | undefined;
}

describe.skipIf(!CHROMIUM)('<protection-offer> in headless Chromium (D55)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let clientId: string;
  let shop: Server;
  let shopUrl: string;
  /** The service as the browser sees it: a pass-through in front of it that notes every request it gets. */
  let front: Server;
  let service: string;
  const reached: string[] = [];
  const submitted: string[] = [];

  /** The shop's cart page: the script tag, the element in a plain form, strict CSP. */
  function cartPage(attributes: string, lang: string, head: Head): string {
    const store = attributes.includes('store=') ? '' : `store="${owner.store.domain}"`;
    const css = head.css ? `<link rel="stylesheet" href="/shop.css?c=${encodeURIComponent(head.css)}">` : '';
    return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Cart</title>${css}
<script ${head.script ?? `src="${service}/widget/v1/offer.js"`}></script>
<link rel="expect" href="#below" blocking="render"></head>
<body><main><h1>Your cart</h1><form method="post" action="/checkout">
<protection-offer ${store} ${attributes}></protection-offer>
<button type="submit">Check out</button></form><p id="below">Below the offer</p></main></body></html>`;
  }

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'storefront-shop');
    const ALL = [...SCOPES] as Scope[];
    clientId = (await createApp(server, owner.user.id, { requestedScopes: ALL })).clientId;
    const token = (await installWithToken(server, clientId, owner.store.id, ALL)).accessToken;
    const api = server.api(token);
    const widgets = answered(await api.widgets.list(), 200).data;
    const modal = widgets.find((w) => w.type === 'INFO_MODAL')!;
    const modalConfig = { infoTitle: 'About protection', infoBody: 'First paragraph.\n\nSecond paragraph.' };
    answered(await api.widgets.update({ params: { widgetConfigId: modal.id }, body: { config: modalConfig } }), 200);
    const cart = widgets.find((w) => w.type === 'CART')!;
    const cartConfig = { description: 'Covers loss, theft and damage.', accentColor: '#0a7d32' };
    answered(await api.widgets.update({ params: { widgetConfigId: cart.id }, body: { config: cartConfig } }), 200);
    const ctx = answered(await api.settings.createContext({ body: { name: 'AB' } }), 201).data;
    const body = { variantKey: 'green', type: 'CART' as const, config: { label: 'Protect this order: {price}' } };
    answered(await api.cohorts.createWidget({ params: { contextId: ctx.id }, body }), 201);
    // Cohorts for the consent rule, the brand paying it all, and a config switched off.
    const percent = (amount: number) => ({ amount, type: 'percentage' as const });
    const priceSet = (variantKey: string, terms: object, auto: boolean) => ({
      variantKey,
      type: 'SHIPPING' as const,
      automaticallyAddToCart: auto,
      autoAddStateBlockList: ['NY'],
      autoAddCountryBlockList: ['CA'],
      rules: [{ min: 0, max: 100_000, terms }],
    });
    for (const set of [
      priceSet('auto', { customer: percent(2) }, true),
      priceSet('brand', { brand: percent(2) }, false),
      priceSet('off', { customer: percent(2) }, false),
    ]) {
      answered(await api.cohorts.createPriceSet({ params: { contextId: ctx.id }, body: set }), 201);
    }
    const off = { variantKey: 'off', type: 'CART' as const, status: 'INACTIVE' as const, config: {} };
    answered(await api.cohorts.createWidget({ params: { contextId: ctx.id }, body: off }), 201);
    const checkout = widgets.find((w) => w.type === 'CHECKOUT')!;
    const checkoutConfig = { label: 'Protect this order at checkout: {price}' };
    answered(
      await api.widgets.update({ params: { widgetConfigId: checkout.id }, body: { config: checkoutConfig } }),
      200,
    );

    await createStore(server.db, { name: 'Euro shop', domain: 'euro-shop.example.com', currency: 'EUR' });

    // Preflights never reach a page's request events, so the service's side counts them.
    front = createServer((req, res) => {
      reached.push(`${req.method} ${new URL(req.url ?? '/', 'http://front').pathname}`);
      const upstream = request(`${server.baseUrl}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    service = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;

    const csp = `default-src 'none'; script-src ${service}; connect-src ${service}; style-src 'self'; form-action 'self'; base-uri 'none'`;
    shop = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://shop');
      if (req.method === 'POST' && url.pathname === '/checkout') {
        let data = '';
        req.on('data', (c) => {
          data += c;
        });
        req.on('end', () => {
          submitted.push(data);
          res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': csp });
          res.end('<!doctype html><html lang="en"><title>Thanks</title><p>Order placed</p></html>');
        });
        return;
      }
      if (url.pathname === '/shop.css') {
        res.writeHead(200, { 'content-type': 'text/css' });
        return res.end(url.searchParams.get('c') ?? '');
      }
      const head = {
        script: url.searchParams.get('script') ?? undefined,
        css: url.searchParams.get('css') ?? undefined,
      };
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
      res.end(
        cartPage(
          url.searchParams.get('a') ?? 'subtotal="125" country="US"',
          url.searchParams.get('lang') ?? 'en',
          head,
        ),
      );
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
    front?.closeAllConnections();
    await new Promise((resolve) => front?.close(resolve));
    await server?.close();
  });

  /** A page of the shop, with the requests to the service, CSP violations, errors and layout shifts recorded. */
  async function open(attributes?: string, context?: BrowserContext, lang = 'en', head: Head = {}) {
    const ctx = context ?? (await browser.newContext());
    const page = await ctx.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(service)) requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(`error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.addInitScript(() => {
      type Rect = { x: number; y: number; width: number; height: number };
      type Shift = {
        value: number;
        hadRecentInput: boolean;
        sources: { node?: Node; previousRect: Rect; currentRect: Rect }[];
      };
      const w = window as unknown as {
        cls: number;
        moved: string[];
        shifts: PerformanceObserver;
        record: (entries: Shift[]) => void;
        changes: unknown[];
      };
      w.cls = 0;
      w.moved = [];
      w.changes = [];
      const at = (r: Rect) => `${r.width}x${r.height}@${r.x},${r.y}`;
      // Scores and names the shifts, as the observer hands them over or as `settled` takes them.
      w.record = (entries) => {
        for (const e of entries) {
          if (e.hadRecentInput) continue;
          w.cls += e.value;
          for (const s of e.sources)
            w.moved.push(
              `${s.node?.nodeName ?? '?'} "${s.node?.textContent?.slice(0, 30) ?? ''}" ${at(s.previousRect)} -> ${at(s.currentRect)}`,
            );
        }
      };
      w.shifts = new PerformanceObserver((list) => w.record(list.getEntries() as unknown as Shift[]));
      w.shifts.observe({ type: 'layout-shift', buffered: true });
      document.addEventListener('protection-change', (e) => w.changes.push((e as CustomEvent).detail));
    });
    const query = new URLSearchParams({ lang });
    if (attributes !== undefined) query.set('a', attributes);
    if (head.script) query.set('script', head.script);
    if (head.css) query.set('css', head.css);
    await page.goto(`${shopUrl}/cart?${query}`);
    return { page, context: ctx, requests, problems };
  }
  const box = (page: Page) => page.locator('protection-offer input[type="checkbox"]');
  const label = (page: Page) => page.locator('protection-offer label');
  /**
   * The page's layout shifts so far, once two frames have rendered: every shift of what is on
   * screen now has been scored, including those not yet handed to the observer.
   */
  const settled = (page: Page) =>
    page.evaluate(async () => {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const w = window as unknown as { shifts: PerformanceObserver; record: (entries: unknown[]) => void };
      w.record(w.shifts.takeRecords());
    });
  const cls = async (page: Page) => {
    await settled(page);
    return page.evaluate(() => (window as unknown as { cls: number }).cls);
  };
  /** What moved, for a message that names it: "BUTTON \"Check out\" 16x6@8,178 -> 76x21@8,167". */
  const moved = async (page: Page) => {
    await settled(page);
    return page.evaluate(() => (window as unknown as { moved: string[] }).moved);
  };
  const stateOf = (page: Page, state: string) =>
    page.evaluate((s) => document.querySelector('protection-offer')!.matches(`:state(${s})`), state);
  /** Where the content after the element sits: it must never move. */
  const belowTop = (page: Page) => page.evaluate(() => document.getElementById('below')!.getBoundingClientRect().top);

  it('renders the price from the quote, the description and the modal text, with one read and no shift', async () => {
    const { page, context, requests, problems } = await open();
    await expect.poll(() => label(page).textContent()).toBe('Add shipping protection for $2.50');
    expect(await page.locator('protection-offer [part="description"]').textContent()).toBe(
      'Covers loss, theft and damage.',
    );
    expect(await box(page).isChecked()).toBe(false);
    expect(requests).toEqual(['GET /widget/v1/offer.js', 'GET /v1/quote/insurance']);
    expect(await moved(page)).toEqual([]);
    await page.locator('protection-offer [part="learn-more"]').click();
    const dialog = page.locator('protection-offer dialog');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.locator('h2').textContent()).toBe('About protection');
    expect(await dialog.locator('p').allTextContents()).toEqual(['First paragraph.', 'Second paragraph.']);
    await page.keyboard.press('Escape');
    expect(await dialog.isVisible()).toBe(false);
    const cookies = await context.cookies();
    const storage = await page.evaluate(() => localStorage.length + sessionStorage.length);
    expect({ cookies, storage }).toEqual({ cookies: [], storage: 0 });
    expect(problems).toEqual([]);
    await screenshots(page, 'storefront-offer');
    await context.close();
  });

  it('submits protection_offer in the plain form only while checked, and fires protection-change', async () => {
    const { page, context } = await open();
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    expect(submitted.at(-1)).toBe('');
    await page.goBack();
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    await box(page).check();
    const changes = await page.evaluate(() => (window as unknown as { changes: unknown[] }).changes);
    expect(changes.at(-1)).toMatchObject({
      selected: true,
      preselected: false,
      offer: { amount: 2.5, currency: 'USD', policyType: 'SHIPPING', token: expect.stringMatching(/\./) },
    });
    const token = (changes.at(-1) as { offer: { token: string } }).offer.token;
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    expect(new URLSearchParams(submitted.at(-1)).get('protection_offer')).toBe(token);
    await context.close();
  });

  it('re-prices on a new subtotal, keeping the choice and announcing the new price', async () => {
    const { page, context } = await open();
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    await box(page).check();
    await page.evaluate(() => document.querySelector('protection-offer')!.setAttribute('subtotal', '250'));
    await expect.poll(() => label(page).textContent()).toBe('Add shipping protection for $5.00');
    expect(await box(page).isChecked()).toBe(true);
    expect(await page.locator('protection-offer [aria-live="polite"]').textContent()).toContain('$5.00');
    const changes = await page.evaluate(() => (window as unknown as { changes: unknown[] }).changes);
    expect(changes.at(-1)).toMatchObject({ selected: true, offer: { amount: 5 } });
    await context.close();
  });

  it("shows the cohort's config when both cohort attributes are set, still in one request (no preflight)", async () => {
    reached.length = 0;
    const { page, context, requests } = await open(`subtotal="125" partner-app-id="${clientId}" variant="green"`);
    await expect.poll(() => label(page).textContent()).toBe('Protect this order: $2.50');
    await page.waitForTimeout(300);
    expect(requests).toEqual(['GET /widget/v1/offer.js', 'GET /v1/quote/insurance']);
    expect(reached).toEqual(['GET /widget/v1/offer.js', 'GET /v1/quote/insurance']);
    // What the count would show of D29's cohort headers: the browser asks first.
    await page.evaluate(
      (url) => fetch(url, { headers: { 'x-svc-partner-app-id': 'a', 'x-svc-partner-variant': 'b' } }).then(() => 0),
      `${service}/v1/quote/insurance?store_url=${owner.store.domain}`,
    );
    expect(reached.slice(2)).toEqual(['OPTIONS /v1/quote/insurance', 'GET /v1/quote/insurance']);
    await context.close();
  });

  it("formats the price in the currency attribute and the page's language, and shows no offer in another currency", async () => {
    const euro = (currency: string) => `store="euro-shop.example.com" subtotal="125" currency="${currency}"`;
    const { page, context } = await open(euro('EUR'), undefined, 'de');
    const price = new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(2.5);
    await expect.poll(() => label(page).textContent()).toBe(`Add shipping protection for ${price}`);
    expect(price).toMatch(/^2,50\s€$/);
    const changes = await page.evaluate(() => (window as unknown as { changes: unknown[] }).changes);
    expect(changes).toEqual([]);
    await box(page).check();
    expect(await page.evaluate(() => (window as unknown as { changes: unknown[] }).changes.at(-1))).toMatchObject({
      offer: { amount: 2.5, currency: 'EUR' },
    });
    await context.close();
    // The cart says USD, the store prices in EUR: no price the shopper would not pay.
    const other = await open(euro('USD'));
    await expect
      .poll(() => other.page.evaluate(() => document.querySelector('protection-offer')!.matches(':state(hidden)')))
      .toBe(true);
    expect(await label(other.page).count()).toBe(0);
    await other.context.close();
  });

  it.each([
    ['US', '', true],
    ['us', 'TX', true],
    ['', '', false],
    ['DE', '', false],
    ['GB', '', false],
    ['NO', '', false],
    ['CA', '', false],
    ['US', 'NY', false],
    ['US', 'US-NY', false],
  ])(
    'starts checked where the cohort adds it automatically only as D55 allows: country "%s", region "%s"',
    async (country, region, checked) => {
      const place = `${country ? `country="${country}"` : ''} ${region ? `region="${region}"` : ''}`;
      const { page, context } = await open(`subtotal="125" partner-app-id="${clientId}" variant="auto" ${place}`);
      await expect.poll(() => stateOf(page, 'ready')).toBe(true);
      expect(await box(page).isChecked()).toBe(checked);
      // A box shown checked is what the form sends, untouched; one shown unchecked sends nothing.
      await page.getByRole('button', { name: 'Check out' }).click();
      await page.waitForURL('**/checkout');
      expect(new URLSearchParams(submitted.at(-1)).has('protection_offer')).toBe(checked);
      await page.goBack();
      await expect.poll(() => stateOf(page, 'ready')).toBe(true);
      await box(page).setChecked(!checked);
      const changes = await page.evaluate(() => (window as unknown as { changes: unknown[] }).changes);
      expect(changes.at(-1)).toMatchObject({ selected: !checked, preselected: checked });
      await context.close();
    },
  );

  it('says "Shipping protection included", with no checkbox, when the brand pays it all, and submits it', async () => {
    const { page, context } = await open(`subtotal="125" partner-app-id="${clientId}" variant="brand"`);
    await expect.poll(() => stateOf(page, 'included')).toBe(true);
    expect(await page.locator('protection-offer [part="label"]').textContent()).toBe('Shipping protection included');
    expect(await box(page).count()).toBe(0);
    expect(
      await page.evaluate(
        () => (document.querySelector('protection-offer') as unknown as { selected: boolean }).selected,
      ),
    ).toBe(true);
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    expect(new URLSearchParams(submitted.at(-1)).get('protection_offer')).toMatch(/\./);
    await context.close();
  });

  it('shows nothing when the placement\'s config is INACTIVE, and the checkout config at placement="checkout"', async () => {
    const off = await open(`subtotal="125" partner-app-id="${clientId}" variant="off"`);
    await expect.poll(() => stateOf(off.page, 'hidden')).toBe(true);
    expect(await label(off.page).count()).toBe(0);
    await off.context.close();
    const { page, context } = await open('subtotal="125" placement="checkout"');
    await expect.poll(() => label(page).textContent()).toBe('Protect this order at checkout: $2.50');
    await context.close();
  });

  it('re-prices once for a burst of subtotals, and shows nothing for a subtotal no rule covers', async () => {
    const { page, context, requests } = await open();
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    await page.evaluate(() => {
      const offer = document.querySelector('protection-offer')!;
      for (const subtotal of ['130', '140', '150', '200', '250']) offer.setAttribute('subtotal', subtotal);
    });
    await expect.poll(() => label(page).textContent()).toContain('$5.00');
    await page.waitForTimeout(400);
    expect(requests.filter((r) => r === 'GET /v1/quote/insurance')).toHaveLength(2);
    await page.evaluate(() => document.querySelector('protection-offer')!.setAttribute('subtotal', '2000000'));
    await expect.poll(() => stateOf(page, 'hidden')).toBe(true);
    expect(await label(page).count()).toBe(0);
    await context.close();
  });

  it("takes the config's accent colour, and the page's --protection-offer-accent over it", async () => {
    const accent = (page: Page) => box(page).evaluate((input) => getComputedStyle(input).accentColor);
    const plain = await open();
    await expect.poll(() => stateOf(plain.page, 'ready')).toBe(true);
    expect(await accent(plain.page)).toBe('rgb(10, 125, 50)');
    await plain.context.close();
    const css = 'protection-offer{--protection-offer-accent:#aa0000}';
    const styled = await open(undefined, undefined, 'en', { css });
    await expect.poll(() => stateOf(styled.page, 'ready')).toBe(true);
    expect(await accent(styled.page)).toBe('rgb(170, 0, 0)');
    await styled.context.close();
  });

  it('runs from its content-hashed name with Subresource Integrity, and a page whose hash is wrong still works', async () => {
    const code = Buffer.from(await (await server.request('/widget/v1/offer.js')).arrayBuffer());
    const name = createHash('sha256').update(code).digest('hex').slice(0, 16);
    const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
    const tag = (sri: string) =>
      `src="${service}/widget/v1/offer.${name}.js" integrity="${sri}" crossorigin="anonymous"`;
    const { page, context, problems } = await open(undefined, undefined, 'en', { script: tag(integrity) });
    await expect.poll(() => label(page).textContent()).toBe('Add shipping protection for $2.50');
    expect(problems).toEqual([]);
    await context.close();
    const wrong = await open(undefined, undefined, 'en', { script: tag(`sha384-${'A'.repeat(64)}`) });
    await wrong.page.waitForTimeout(300);
    expect(await wrong.page.evaluate(() => customElements.get('protection-offer'))).toBeUndefined();
    await wrong.page.getByRole('button', { name: 'Check out' }).click();
    await wrong.page.waitForURL('**/checkout');
    expect(submitted.at(-1)).toBe('');
    await wrong.context.close();
  });

  it('is usable by keyboard alone, with targets of at least 24 x 24 px', async () => {
    const { page, context } = await open();
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    for (const target of [box(page), page.locator('protection-offer [part="learn-more"]')]) {
      const b = (await target.boundingBox())!;
      expect(b.width).toBeGreaterThanOrEqual(24);
      expect(b.height).toBeGreaterThanOrEqual(24);
    }
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await box(page).isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await page.locator('protection-offer dialog').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.locator('protection-offer dialog').isVisible()).toBe(false);
    // Focus is back on "Learn more"; one step back is the box.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Space');
    expect(await box(page).isChecked()).toBe(false);
    await context.close();
  });

  it('is axe clean checked and unchecked', async () => {
    // axe is injected, so this context bypasses the page's CSP; the element is the same.
    const context = await browser.newContext({ bypassCSP: true });
    const { page } = await open(undefined, context);
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    await page.addScriptTag({ content: AXE_SOURCE });
    const serious = () =>
      page.evaluate(async () => {
        const axe = (
          globalThis as unknown as {
            axe: { run(o: object): Promise<{ violations: { id: string; impact: string }[] }> };
          }
        ).axe;
        const r = await axe.run({
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
        });
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
      });
    expect(await serious()).toEqual([]);
    await box(page).check();
    expect(await serious()).toEqual([]);
    await context.close();
  });

  it.each([
    ['answers 500', 500],
    ['answers 404', 404],
    ['says nothing for 3 s', 0],
  ])('shows nothing when the service %s, moves nothing, and the page still works', async (_name, status) => {
    for (const width of [390, 1280]) {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      await context.route(`${service}/v1/quote/insurance**`, async (route) => {
        if (status === 0) {
          await new Promise((resolve) => setTimeout(resolve, 3000));
          return route.abort().catch(() => undefined);
        }
        return route.fulfill({ status, contentType: 'application/json', body: '{"statusCode":500}' });
      });
      const { page, problems } = await open(undefined, context);
      const top = await belowTop(page);
      await expect.poll(() => stateOf(page, 'hidden'), { timeout: 5000 }).toBe(true);
      expect(await page.locator('protection-offer label').count()).toBe(0);
      expect(await page.locator('protection-offer input').count()).toBe(0);
      // The reserved box stays, empty: what follows the element did not move.
      expect({ width, moved: await moved(page), below: await belowTop(page) }).toEqual({
        width,
        moved: [],
        below: top,
      });
      expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
      await page.getByRole('button', { name: 'Check out' }).click();
      await page.waitForURL('**/checkout');
      expect(submitted.at(-1)).toBe('');
      await context.close();
    }
  });

  it.each([
    ['the merchant', 'subtotal="125" country="US"'],
    ['a cohort', 'subtotal="125" partner-app-id="__APP__" variant="green"'],
  ])(
    "moves nothing at 320, 390 and 1280 px when %s's offer renders, and when it re-prices",
    async (_name, attributes) => {
      // At 320 px the default label and "Learn more" take two lines: the narrow reserve holds them.
      for (const width of [320, 390, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 800 } });
        const { page } = await open(attributes.replace('__APP__', clientId), context);
        const top = await belowTop(page);
        await expect.poll(() => stateOf(page, 'ready')).toBe(true);
        await page.evaluate(() => document.querySelector('protection-offer')!.setAttribute('subtotal', '250'));
        await expect.poll(() => label(page).textContent()).toContain('5.00');
        expect({ width, moved: await moved(page), below: await belowTop(page) }).toEqual({
          width,
          moved: [],
          below: top,
        });
        await context.close();
      }
    },
  );

  it('moves nothing with a deferred script that arrives late, given the one rule docs/storefront.md gives the page', async () => {
    const rule = 'protection-offer{display:block;min-height:4em;--protection-offer-height:4em}';
    const shifts: Record<string, number> = {};
    for (const [name, css] of [
      ['without the rule', undefined],
      ['with the rule', rule],
    ] as const) {
      const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
      // The page paints first; the script comes half a second later.
      await context.route(`${service}/widget/v1/offer.js`, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        return route.continue();
      });
      const script = `src="${service}/widget/v1/offer.js" defer`;
      const { page } = await open(undefined, context, 'en', { script, css });
      await expect.poll(() => label(page).textContent()).toContain('$2.50');
      shifts[name] = await cls(page);
      await context.close();
    }
    expect(shifts['without the rule']).toBeGreaterThan(0);
    expect(shifts['with the rule']).toBe(0);
  });

  it('keeps the choice the shopper made when the shopper comes back to the cart (form state restore)', async () => {
    const { page, context } = await open();
    await expect.poll(() => label(page).textContent()).toContain('$2.50');
    await box(page).check();
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    const token = new URLSearchParams(submitted.at(-1)).get('protection_offer');
    expect(token).toMatch(/\./);
    await page.goBack();
    await expect.poll(() => stateOf(page, 'ready')).toBe(true);
    expect(await box(page).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    expect(new URLSearchParams(submitted.at(-1)).get('protection_offer')).toBe(token);
    // Unchecked by the shopper, unchecked on the way back: a choice is restored either way.
    await page.goBack();
    await expect.poll(() => stateOf(page, 'ready')).toBe(true);
    await box(page).uncheck();
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    expect(submitted.at(-1)).toBe('');
    await page.goBack();
    await expect.poll(() => stateOf(page, 'ready')).toBe(true);
    expect(await box(page).isChecked()).toBe(false);
    await context.close();
  });
});

import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SCOPES, type Scope } from '@protection-service/contract';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe.skipIf(!CHROMIUM)('<protection-offer> in headless Chromium (D55)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let clientId: string;
  let shop: Server;
  let shopUrl: string;
  const submitted: string[] = [];

  /** The shop's cart page: the script tag, the element in a plain form, strict CSP. */
  function cartPage(attributes: string): string {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cart</title>
<script src="${server.baseUrl}/widget/v1/offer.js"></script></head>
<body><main><h1>Your cart</h1><form method="post" action="/checkout">
<protection-offer store="${owner.store.domain}" ${attributes}></protection-offer>
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

    const csp = `default-src 'none'; script-src ${server.baseUrl}; connect-src ${server.baseUrl}; style-src 'self'; form-action 'self'; base-uri 'none'`;
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
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
      res.end(cartPage(url.searchParams.get('a') ?? 'subtotal="125" country="US"'));
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await server?.close();
  });

  /** A page of the shop, with the requests to the service, CSP violations, errors and layout shifts recorded. */
  async function open(attributes?: string, context?: BrowserContext) {
    const ctx = context ?? (await browser.newContext());
    const page = await ctx.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(server.baseUrl)) requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(`error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.addInitScript(() => {
      const w = window as unknown as { cls: number; changes: unknown[] };
      w.cls = 0;
      w.changes = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
          if (!e.hadRecentInput) w.cls += e.value;
      }).observe({ type: 'layout-shift', buffered: true });
      document.addEventListener('protection-change', (e) => w.changes.push((e as CustomEvent).detail));
    });
    const query = attributes === undefined ? '' : `?a=${encodeURIComponent(attributes)}`;
    await page.goto(`${shopUrl}/cart${query}`);
    return { page, context: ctx, requests, problems };
  }
  const box = (page: Page) => page.locator('protection-offer input[type="checkbox"]');
  const label = (page: Page) => page.locator('protection-offer label');

  it('renders the price from the quote, the description and the modal text, with one read and no shift', async () => {
    const { page, context, requests, problems } = await open();
    await expect.poll(() => label(page).textContent()).toBe('Add shipping protection for $2.50');
    expect(await page.locator('protection-offer [part="description"]').textContent()).toBe(
      'Covers loss, theft and damage.',
    );
    expect(await box(page).isChecked()).toBe(false);
    expect(requests).toEqual(['GET /widget/v1/offer.js', 'GET /v1/quote/insurance']);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { cls: number }).cls)).toBe(0);
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

  it("shows the cohort's config when both cohort attributes are set", async () => {
    const { page, context } = await open(`subtotal="125" partner-app-id="${clientId}" variant="green"`);
    await expect.poll(() => label(page).textContent()).toBe('Protect this order: $2.50');
    await context.close();
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
  ])('shows nothing when the service %s, and the page still works', async (_name, status) => {
    const context = await browser.newContext();
    await context.route(`${server.baseUrl}/v1/quote/insurance**`, async (route) => {
      if (status === 0) {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return route.abort().catch(() => undefined);
      }
      return route.fulfill({ status, contentType: 'application/json', body: '{"statusCode":500}' });
    });
    const { page, problems } = await open(undefined, context);
    await page.waitForTimeout(status === 0 ? 2500 : 500);
    expect(await page.locator('protection-offer label').count()).toBe(0);
    expect(await page.evaluate(() => document.querySelector('protection-offer')!.shadowRoot!.childElementCount)).toBe(
      0,
    );
    expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.waitForURL('**/checkout');
    expect(submitted.at(-1)).toBe('');
    await context.close();
  });
});

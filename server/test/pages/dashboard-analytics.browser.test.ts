import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percent } from '../../src/pages/dashboard/analytics/views';
import { CHROMIUM, expectAccessible, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { CLAIM_TEST_SCOPES, type ClaimStore, claimStore } from '../harness/claims';
import { addMember, signedInPage } from '../harness/dashboard';
import { answered } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** D52's analytics page in headless Chromium: the API's figures, charts with tables, roles (D49). */
if (!CHROMIUM) console.warn(`[pages] analytics browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the analytics page in headless Chromium (D52)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'dash-analytics', [...CLAIM_TEST_SCOPES, 'analytics:read']);
    const sourceCreatedAt = new Date().toISOString();
    await shop.putOrder('7001', { sourceOrderNumber: '#7001', premiumPaid: 2.5, sourceCreatedAt });
    await shop.putOrder('7002', { sourceOrderNumber: '#7002', premiumPaid: 3.1, currency: 'EUR', sourceCreatedAt });
    await shop.putOrder('7003', { sourceOrderNumber: '#7003', sourceCreatedAt });
    await shop.fileId('7001');
    // D55: an order that carried the store's offer, chosen, yet written without protection.
    const quote = await server.request(`/v1/quote/insurance?storeId=${shop.owner.store.id}&subtotal=125`);
    const { token } = ((await quote.json()) as { offer: { token: string } }).offer;
    const protectionOffer = { token, selected: true, preselected: false, decidedAt: sourceCreatedAt };
    await shop.putOrder('7004', { sourceOrderNumber: '#7004', sourceCreatedAt, protectionOffer });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the API's figures for the last 30 days, charts named and followed by their tables", async () => {
    const api = answered(await shop.api.analytics.summary({ query: { from, to: today } }), 200).data;
    const owner = { email: shop.owner.user.email, password: shop.owner.password };
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}`);
    await page.getByRole('navigation', { name: 'Store' }).getByRole('link', { name: 'Analytics' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Analytics');
    const figure = (term: string) => page.locator(`dt:text-is("${term}") + dd`).textContent();
    expect(await figure('Orders')).toBe(String(api.orders));
    expect(await figure('Protected orders')).toBe(String(api.protectedOrders));
    expect(await figure('Attach rate')).toBe(percent(api.attachRate));
    expect(await figure('Claims')).toBe(String(api.claims));
    expect(await figure('Claim rate')).toBe(percent(api.claimRate));
    expect(await figure('Premiums')).toBe('3.10 EUR, 2.50 USD');
    expect(api).toMatchObject({ orders: 4, protectedOrders: 2, claims: 1 });
    for (const name of ['Claims per day', 'Protected orders per day']) {
      expect(await page.getByRole('img', { name: new RegExp(`^${name}`) }).count(), name).toBe(1);
      expect(await page.getByRole('table', { name }).getByRole('row').count(), name).toBe(31);
    }
    await expectAccessible(browser, page, 'analytics');
    await screenshots(page, 'dashboard-analytics');
    await page.getByRole('link', { name: 'Last 365 days' }).click();
    expect(await page.getByRole('img', { name: /^Claims per month/ }).count()).toBe(1);
    await context.close();
  });

  it("shows the storefront offer's results per cohort, and the order page flags a record that does not match (D55)", async () => {
    const owner = { email: shop.owner.user.email, password: shop.owner.password };
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/analytics`);
    const table = page.getByRole('table', { name: 'Storefront offer per cohort' });
    const cells = await table.getByRole('row').nth(1).getByRole('cell').allTextContents();
    expect(cells).toEqual(["The store's offer", '1', '1', '100.0%', '0.0%', 'None']);
    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/orders/7004`);
    const offer = page.getByRole('region', { name: 'Protection offer' });
    expect(await offer.textContent()).toContain('Does not match: the shopper chose protection at 2.50 USD');
    expect(await offer.locator('dt:text-is("Matches the order") + dd').textContent()).toBe('No');
    await expectAccessible(browser, page, 'order offer');
    await context.close();
  });

  it('offers no Analytics link to a role without analytics:read, and answers its page 403', async () => {
    const agent = await addMember(server, shop.owner.store.id, 'agent');
    const { context, page } = await signedInPage(browser, server, agent);
    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}`);
    expect(await page.getByRole('link', { name: 'Analytics' }).count()).toBe(0);
    const res = await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/analytics`);
    expect(res?.status()).toBe(403);
    expect(await page.content()).toContain('Your role does not allow this');
    await context.close();
    const viewer = await addMember(server, shop.owner.store.id, 'viewer');
    const seen = await signedInPage(browser, server, viewer);
    await seen.page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}`);
    expect(await seen.page.getByRole('link', { name: 'Analytics' }).count()).toBe(1);
    await seen.context.close();
  });
});

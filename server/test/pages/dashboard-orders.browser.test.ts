import { ZError } from '@protection-service/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectFormsCarryCsrf,
  launchChromium,
  NO_CHROMIUM,
  screenshots,
} from '../harness/browser';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { addMember, signedInPage } from '../harness/dashboard';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D50's orders in headless Chromium: the search by order number and e-mail (D51), 50 a page,
 * an order with its claimable quantities (D39, D51), fulfillments and claims, and "File a
 * claim" for the shopper, through the API with the person's staff token.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard orders browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the dashboard orders pages in headless Chromium (D50, D51)', () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let other: ClaimStore;
  let firstClaim: string;

  const teapot = (quantity: number) =>
    claimBody({
      email: 'ann@example.com',
      fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity, sourceItemId: 'li-teapot' }] }],
    });
  const claimsOf = async (sourceOrderId: string) => {
    const res = await shop.api.orders.listClaims({ params: { sourceOrderId } });
    if (res.status !== 200) throw new Error(`listClaims answered ${res.status}`);
    return res.body;
  };

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'dash-orders');
    other = await claimStore(server, 'dash-orders-other');
    // 55 older orders first, so the searched one is the newest and the list has two pages.
    for (let batch = 0; batch < 55; batch += 11) {
      await Promise.all(
        Array.from({ length: 11 }, (_, i) =>
          shop.putOrder(`6${String(batch + i).padStart(3, '0')}`, {
            sourceOrderNumber: `#6${String(batch + i).padStart(3, '0')}`,
            customerEmail: `buyer${batch + i}@example.com`,
          }),
        ),
      );
    }
    await shop.putOrder('7001', {
      sourceOrderNumber: '#7001',
      customerEmail: 'ann@example.com',
      customerName: 'Ann Shopper',
      premiumPaid: 2,
      lineItems: [
        { sourceItemId: 'li-teapot', name: 'Teapot', quantity: 2, price: 30 },
        { sourceItemId: 'li-cups', name: 'Cups', quantity: 4, price: 10 },
      ],
    });
    const fulfilled = await shop.api.orders.upsertFulfillment({
      params: { sourceOrderId: '7001', sourceFulfillmentId: 'ful-1' },
      body: {
        fulfillmentStatus: 'IN_TRANSIT',
        trackingCompany: 'UPS',
        trackingNumber: ['1Z999AA10123456784'],
        trackingUrl: ['https://tracking.example.com/1Z999AA10123456784'],
      },
    });
    expect(fulfilled.status).toBe(200);
    firstClaim = await shop.fileId('7001', teapot(1));
    await other.putOrder('9001', { sourceOrderNumber: '#9001' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const owner = () => ({ email: shop.owner.user.email, password: shop.owner.password });
  const ordersUrl = () => `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/orders`;
  const rows = (page: Page) => page.locator('main table tbody tr');

  async function search(page: Page, q: string) {
    await page.goto(ordersUrl());
    await page.getByLabel('Search').fill(q);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.url()).toContain('q=');
  }

  it('finds an order by its number and by the shopper e-mail, and says when nothing matches', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await search(page, '#7001');
    expect(await rows(page).count()).toBe(1);
    expect(await page.getByRole('link', { name: '#7001' }).count()).toBe(1);
    await search(page, 'ann@example.com');
    expect(await rows(page).count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'Ann Shopper' }).count()).toBe(1);
    await search(page, 'nobody@example.com');
    expect(await rows(page).count()).toBe(0);
    expect(await page.locator('main').innerText()).toContain('No order has this number or e-mail.');
    await expectAccessible(browser, page, 'orders, nothing found');
    await context.close();
  });

  it('lists 50 orders a page, newest first, with "Next page" to the rest', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.goto(ordersUrl());
    expect(await page.getByRole('columnheader').allInnerTexts()).toEqual([
      'Order',
      'Shopper',
      'E-mail',
      'Total',
      'Protection',
      'Placed',
    ]);
    expect(await rows(page).count()).toBe(50);
    const first = await page.locator('main tbody tr td:first-child').allInnerTexts();
    expect(first[0]).toBe('#7001');
    await expectAccessible(browser, page, 'orders');
    await expectFormsCarryCsrf(page);
    await screenshots(page, 'dashboard-orders');
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(() => page.url()).toContain('after=');
    const second = await page.locator('main tbody tr td:first-child').allInnerTexts();
    expect(second).toHaveLength(6);
    expect(second.filter((n) => first.includes(n))).toEqual([]);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await context.close();
  });

  it('shows an order with its claimable quantities, tracking and claims, and files a claim for the shopper', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.goto(ordersUrl());
    await page.getByRole('link', { name: '#7001' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Order #7001');
    // Teapot: 2 ordered, 1 claimed already; Cups: 4, none claimed (D39).
    expect(await page.getByRole('row', { name: /Teapot/ }).innerText()).toMatch(/Teapot\s+2\s+1\s/);
    expect(await page.getByRole('row', { name: /Cups/ }).innerText()).toMatch(/Cups\s+4\s+4\s/);
    expect(await page.getByRole('cell', { name: '1Z999AA10123456784', exact: true }).count()).toBe(1);
    // The package in one line (D54): the fulfillment PUT was its one carrier scan.
    expect(await page.getByRole('region', { name: 'Fulfillments' }).locator('tbody tr').innerText()).toMatch(
      /1Z999AA10123456784: In transit, last scan \d{4}-/,
    );
    expect(await page.getByRole('link', { name: firstClaim }).getAttribute('href')).toBe(
      `/dashboard/stores/${shop.owner.store.id}/claims/${firstClaim}`,
    );
    expect(await page.getByLabel("Shopper's e-mail").inputValue()).toBe('ann@example.com');
    await expectAccessible(browser, page, 'order');
    await expectFormsCarryCsrf(page);
    await screenshots(page, 'dashboard-order');

    const cups = page.getByRole('group', { name: 'Cups' });
    await cups.getByLabel('Issue').selectOption('MISSING_ITEM');
    await cups.getByLabel('Quantity').fill('3');
    await page.getByLabel('Details').fill('Three cups were not in the box.');
    await page.getByLabel('Desired resolution').selectOption('REFUND');
    await page.getByRole('button', { name: 'File a claim' }).click();
    await expect.poll(() => page.url()).toMatch(/\/claims\/[^/?]+\?notice=claimFiled$/);
    const claimId = new URL(page.url()).pathname.split('/').pop()!;
    expect(new URL(page.url()).pathname).toBe(`/dashboard/stores/${shop.owner.store.id}/claims/${claimId}`);
    const claim = await shop.api.claims.get({ params: { claimId } });
    expect(claim.status).toBe(200);
    if (claim.status !== 200) return;
    expect(claim.body.authorEmail).toBe('ann@example.com');
    expect(claim.body.claimItems.map((i) => [i.name, i.quantity, i.issueType, i.details])).toEqual([
      ['Cups', 3, 'MISSING_ITEM', 'Three cups were not in the box.'],
    ]);
    expect(claim.body.resolutionRequested).toBe('REFUND');
    await context.close();
  });

  it("answers an over-claim with the API's message and files nothing (D39)", async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.goto(`${ordersUrl()}/7001`);
    // The page offers the teapot's last one; meanwhile the shopper claims it elsewhere.
    const teapotGroup = page.getByRole('group', { name: 'Teapot' });
    await teapotGroup.getByLabel('Issue').selectOption('DAMAGED');
    await shop.fileId('7001', teapot(1));
    const refused = await shop.file('7001', teapot(1));
    expect(refused.status).toBe(400);
    const { message } = await jsonOf(refused, ZError);
    const before = (await claimsOf('7001')).length;
    await page.getByRole('button', { name: 'File a claim' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('This was not done');
    expect(await page.getByRole('alert').innerText()).toBe(message);
    expect((await claimsOf('7001')).length).toBe(before);
    await expectAccessible(browser, page, 'over-claim refused');
    await context.close();
  });

  it('files once when the same form is sent twice, and says so (D33)', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.goto(`${ordersUrl()}/7001`);
    const form = page.locator('form[action$="/claims"]');
    const fields: Record<string, string> = {};
    for (const input of await form.locator('input[type="hidden"]').all()) {
      fields[(await input.getAttribute('name'))!] = await input.inputValue();
    }
    Object.assign(fields, {
      'line-1-issue': 'DAMAGED',
      'line-1-quantity': '1',
      desiredMethod: 'RESHIP',
      email: 'ann@example.com',
    });
    const before = (await claimsOf('7001')).length;
    const send = () =>
      page.request.post(`${ordersUrl()}/7001/claims`, {
        form: fields,
        headers: { origin: server.baseUrl },
        maxRedirects: 0,
      });
    const first = await send();
    const second = await send();
    expect(first.status()).toBe(303);
    expect(second.status()).toBe(303);
    expect(first.headers().location).toMatch(/\/claims\/[^/?]+\?notice=claimFiled$/);
    expect(second.headers().location).toBe(first.headers().location?.replace('claimFiled', 'replayed'));
    expect((await claimsOf('7001')).length).toBe(before + 1);
    await context.close();
  });

  it("answers another store's order exactly like an unknown one (D7)", async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    const foreign = await page.goto(`${ordersUrl()}/9001`);
    const foreignText = await page.locator('main').innerText();
    const unknown = await page.goto(`${ordersUrl()}/no-such-order`);
    expect(foreign?.status()).toBe(404);
    expect(unknown?.status()).toBe(404);
    expect(await page.locator('main').innerText()).toBe(foreignText);
    await expectAccessible(browser, page, 'order not found');
    await context.close();
  });

  it('offers a viewer the order but no "File a claim"', async () => {
    const viewer = await addMember(server, shop.owner.store.id, 'viewer');
    const { context, page } = await signedInPage(browser, server, viewer);
    await page.goto(`${ordersUrl()}/7001`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Order #7001');
    expect(await page.getByRole('button', { name: 'File a claim' }).count()).toBe(0);
    await context.close();
  });
});

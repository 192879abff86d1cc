import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectFormsCarryCsrf,
  launchChromium,
  NO_CHROMIUM,
  screenshots,
} from '../harness/browser';
import { type ClaimStore, claimStore } from '../harness/claims';
import { addMember, signedInPage } from '../harness/dashboard';
import { startTestServer, type TestServer } from '../harness/server';

/** D50 in headless Chromium: signing in, the store list, a store's home, signing out. */
if (!CHROMIUM) console.warn(`[pages] dashboard browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the merchant dashboard in headless Chromium (D50)', () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let other: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'dash-home');
    other = await claimStore(server, 'dash-other');
    await shop.putOrder('5001', { sourceOrderNumber: '#5001' });
    await shop.fileId('5001');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs in, lists the stores, shows a home with the tabs and the oldest claim to do', async () => {
    const { context, page } = await signedInPage(browser, server, {
      email: shop.owner.user.email,
      password: shop.owner.password,
    });
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Your stores');
    await page.getByRole('link', { name: shop.owner.store.name }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(shop.owner.store.name);
    expect(await page.getByRole('link', { name: 'To do' }).count()).toBe(1);
    expect(await page.getByRole('cell', { name: '#5001' }).count()).toBe(1);
    await expectFormsCarryCsrf(page);
    await expectAccessible(browser, page, 'store home');
    await screenshots(page, 'dashboard-home');
    await context.close();
  });

  it("answers another store's home as not found", async () => {
    const { context, page } = await signedInPage(browser, server, {
      email: shop.owner.user.email,
      password: shop.owner.password,
    });
    const res = await page.goto(`${server.baseUrl}/dashboard/stores/${other.owner.store.id}`);
    expect(res?.status()).toBe(404);
    const unknown = await page.goto(`${server.baseUrl}/dashboard/stores/sto_doesnotexist`);
    expect(unknown?.status()).toBe(404);
    expect(await page.content()).toContain('Not found');
    await context.close();
  });

  it('signing out in one tab signs out every tab of the browser', async () => {
    const viewer = await addMember(server, shop.owner.store.id, 'viewer');
    const { context, page } = await signedInPage(browser, server, viewer);
    const second = await context.newPage();
    await second.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}`);
    expect(await second.getByRole('heading', { level: 1 }).textContent()).toBe(shop.owner.store.name);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toContain('/dashboard/sign-in');
    await second.reload();
    expect(second.url()).toContain('/dashboard/sign-in');
    await context.close();
  });
});

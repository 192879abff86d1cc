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
import { createTestStoreOf } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** D50 in headless Chromium: signing in, the store list, a store's home, signing out. */
if (!CHROMIUM) console.warn(`[pages] dashboard browser tests skipped: ${NO_CHROMIUM}`);

// Several pages through axe in one test: minutes on a busy machine, not seconds.
describe.skipIf(!CHROMIUM)('the merchant dashboard in headless Chromium (D50)', { timeout: 120_000 }, () => {
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

  it('is accessible in every state of the frame: sign-in, a wrong password, no store, not found, a refusal', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims`);
    // Not signed in: the sign-in page, which brings the person back where they were going.
    expect(page.url()).toContain('/dashboard/sign-in?next=');
    await expectAccessible(browser, page, 'dashboard sign-in');
    await screenshots(page, 'dashboard-sign-in');
    await page.getByLabel('Email').fill(shop.owner.user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    await expectAccessible(browser, page, 'dashboard sign-in, wrong password');
    await page.getByLabel('Password').fill(shop.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Claims');
    // A cursor the API refuses: its message on a page, 400, not a 500.
    const refused = await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims?after=garbage`);
    expect(refused?.status()).toBe(400);
    await expectAccessible(browser, page, 'dashboard refusal');
    const missing = await page.goto(`${server.baseUrl}/dashboard/stores/${other.owner.store.id}/claims`);
    expect(missing?.status()).toBe(404);
    await expectAccessible(browser, page, 'dashboard not found');
    const nowhere = await page.goto(`${server.baseUrl}/dashboard/nowhere`);
    expect(nowhere?.status()).toBe(404);
    expect(nowhere?.headers()['content-type']).toContain('text/html');
    await context.close();
    const loner = await addMember(server, shop.owner.store.id, 'viewer');
    await server.db.deleteFrom('storeMembers').where('userId', '=', loner.userId).execute();
    const { context: alone, page: empty } = await signedInPage(browser, server, loner);
    expect(await empty.getByText('Your account belongs to no store yet.').count()).toBe(1);
    await expectAccessible(browser, empty, 'dashboard, no store');
    await alone.close();
  });

  it('marks a test store in the list and on its pages (D45)', async () => {
    const testStore = await createTestStoreOf(server, shop.owner.user.id, shop.clientId, 'Sandbox shop');
    const { context, page } = await signedInPage(browser, server, {
      email: shop.owner.user.email,
      password: shop.owner.password,
    });
    const item = page.getByRole('listitem').filter({ hasText: 'Sandbox shop' });
    expect(await item.getByText('Test store').count()).toBe(1);
    await page.goto(`${server.baseUrl}/dashboard/stores/${testStore.id}`);
    expect(await page.locator('.banner').textContent()).toBe('Test store');
    await context.close();
  });

  it('can be used with the keyboard alone, with the focus always visible', async () => {
    const { context, page } = await signedInPage(browser, server, {
      email: shop.owner.user.email,
      password: shop.owner.password,
    });
    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims`);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return {
          text: el.textContent?.trim() ?? '',
          tag: el.tagName,
          outline: style.outlineStyle,
          name: el.getAttribute('name'),
        };
      });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Skip to content', outline: 'solid' });
    // Tab on to the first claim's checkbox, tick it, and decline it with the keyboard.
    for (let i = 0; i < 40 && (await focused()).name !== 'claimId'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ name: 'claimId', outline: 'solid' });
    await page.keyboard.press('Space');
    for (let i = 0; i < 10 && (await focused()).text !== 'Decline'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Decline', outline: 'solid' });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { name: /^Decline: 1 of 1 claims/ }).count()).toBe(1);
    await context.close();
  });
});

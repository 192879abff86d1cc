import { SCOPE_DESCRIPTIONS } from '@protection-service/contract';
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
import { bearer, createApp } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D50's apps page in headless Chromium: the installed apps with their scopes in words, and
 * "Uninstall" for an owner or admin (D14, D49) which ends the app's tokens; the consent
 * page's "dashboard" leads here.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard apps browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the dashboard apps page in headless Chromium (D14, D50)', () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'dash-apps');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const appsUrl = () => `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/apps`;
  const owner = () => ({ email: shop.owner.user.email, password: shop.owner.password });
  const appWorks = async () => (await server.request('/v1/claims', { headers: bearer(shop.token) })).status;

  it('links the consent page\'s "dashboard" to the store\'s apps page', async () => {
    const app = await createApp(server, shop.owner.user.id, { name: 'Box Tracker', requestedScopes: ['order:read'] });
    const { context, page } = await signedInPage(browser, server, owner());
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: 'https://app.example.com/callback',
      scope: 'order:read',
      state: 'state-1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    await page.goto(`${server.baseUrl}/v1/oauth/authorize?${query}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Install Box Tracker?');
    const link = page.getByRole('link', { name: 'dashboard', exact: true });
    expect(await link.getAttribute('href')).toBe(`/dashboard/stores/${shop.owner.store.id}/apps`);
    await expectAccessible(browser, page, 'consent with the dashboard link');
    await context.close();
  });

  it('shows a viewer the apps and what they may do, with no "Uninstall"; a forged one is refused', async () => {
    const viewer = await addMember(server, shop.owner.store.id, 'viewer');
    const { context, page } = await signedInPage(browser, server, viewer);
    await page.goto(appsUrl());
    expect(await page.getByRole('heading', { level: 2, name: 'Test App' }).count()).toBe(1);
    expect(await page.locator('main').innerText()).toContain(SCOPE_DESCRIPTIONS['claim:manage']);
    expect(await page.getByRole('button', { name: /Uninstall/ }).count()).toBe(0);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const forged = await page.request.post(`${appsUrl()}/${shop.clientId}/uninstall`, {
      form: { csrf },
      headers: { origin: server.baseUrl },
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('Your role does not allow this');
    expect(await appWorks()).toBe(200);
    await context.close();
  });

  it("uninstalls an app for the owner, after which the app's token fails", async () => {
    expect(await appWorks()).toBe(200);
    const { context, page } = await signedInPage(browser, server, owner());
    await page.goto(appsUrl());
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Apps');
    expect(await page.locator('main').innerText()).toContain(SCOPE_DESCRIPTIONS['claim:read']);
    await expectAccessible(browser, page, 'apps');
    await expectFormsCarryCsrf(page);
    await screenshots(page, 'dashboard-apps');
    await page.getByRole('button', { name: 'Uninstall Test App' }).click();
    await expect.poll(() => page.url()).toContain('notice=uninstalled');
    expect(await page.locator('output.notice').innerText()).toBe(
      'The app is uninstalled: its access to the store has ended.',
    );
    expect(await page.getByRole('heading', { level: 2, name: 'Test App' }).count()).toBe(0);
    expect(await page.locator('main').innerText()).toContain('No app is installed on this store.');
    await expectAccessible(browser, page, 'apps, none installed');
    await expect.poll(appWorks, { timeout: 5_000 }).toBe(401);
    // The same form again: said, not an error page.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const again = await page.request.post(`${appsUrl()}/${shop.clientId}/uninstall`, {
      form: { csrf },
      headers: { origin: server.baseUrl },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toContain('notice=appGone');
    await context.close();
  });
});

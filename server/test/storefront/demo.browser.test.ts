import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/domain/identity/stores';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { startTestServer, type TestServer } from '../harness/server';

/** D55: a development install's /demo/storefront, the demo store's cart with the offer in a plain form. */
if (!CHROMIUM) console.warn(`[storefront] demo browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('/demo/storefront (D55)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let production: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer({ deploymentEnvironment: 'local' });
    production = await startTestServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await production?.close();
  });

  it('says to run pnpm cli seed while the demo store is missing, and is not served in production', async () => {
    const res = await server.request('/demo/storefront');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('pnpm cli seed');
    expect((await production.request('/demo/storefront')).status).toBe(404);
  });

  it("shows the demo store's offer in a plain form and what the form submitted", async () => {
    await createStore(server.db, { name: 'Demo Store', domain: 'demo-store.localhost' });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.baseUrl}/demo/storefront`);
    const label = page.locator('protection-offer label');
    await expect.poll(() => label.textContent()).toBe('Add shipping protection for $2.00');
    await page.locator('protection-offer input[type="checkbox"]').check();
    await page.getByRole('button', { name: 'Check out' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'What the form submitted' }).count()).toBe(1);
    expect(await page.locator('code.token').textContent()).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(errors).toEqual([]);
    await screenshots(page, 'demo-storefront');
    await context.close();
  });
});

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
import { addMember, signedInPage } from '../harness/dashboard';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D50's settings page in headless Chromium: an owner writes the store's defaults through
 * PATCH /v1/stores/:storeId/settings (D53) and they read back through the API as a merchant's
 * write; the API's limits answer with its message next to the form; a viewer or agent gets no
 * form, and a forged post changes nothing.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard settings browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the dashboard settings page in headless Chromium (D50, D53)', () => {
  let server: TestServer;
  let browser: Browser;
  let owner: Owner;
  let appToken: string;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'dash-settings');
    const app = await createApp(server, owner.user.id, { requestedScopes: ['store:read'] });
    clientId = app.clientId;
    appToken = (await installWithToken(server, app.clientId, owner.store.id, ['store:read'])).accessToken;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const settingsUrl = () => `${server.baseUrl}/dashboard/stores/${owner.store.id}/settings`;
  const read = async () => answered(await server.api(appToken).settings.get(), 200).data;
  const me = () => ({ email: owner.user.email, password: owner.password });

  it('lets the owner save the defaults, which read back through the API as a merchant write', async () => {
    // As if an app had written last: the dashboard's write must clear it (spec).
    await server.db
      .updateTable('merchantSettings')
      .set({ updatedByApplicationId: clientId })
      .where('storeId', '=', owner.store.id)
      .execute();
    const { context, page } = await signedInPage(browser, server, me());
    await page.goto(settingsUrl());
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Settings');
    await expectAccessible(browser, page, 'settings');
    await expectFormsCarryCsrf(page);
    await screenshots(page, 'dashboard-settings');
    await page.getByLabel('Send text message updates').check();
    await page.getByLabel('Bonus kind').selectOption('percentage');
    await page.getByLabel('Bonus', { exact: true }).fill('5');
    await page.getByLabel('Most store credit (percent of the claim)').fill('60');
    await page.getByLabel('Cancelling window (seconds)').fill('86400');
    // D56: the issue types the claim form asks photos for, one box each.
    expect(await page.getByLabel('Damaged').isChecked()).toBe(true);
    await page.getByLabel('Wrong item').uncheck();
    await page.getByLabel('Stolen').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.url()).toContain('notice=settingsSaved');
    expect(await page.locator('output.notice').innerText()).toBe('Settings saved.');
    await expect
      .poll(async () => {
        const s = await read();
        return [s.sendSmsUpdates, s.storeCreditBonusType, s.storeCreditBonus, s.storeCreditMaxPercentage];
      })
      .toEqual([true, 'percentage', 5, 60]);
    const s = await read();
    expect(s.cancelAfterPurchaseDurationSeconds).toBe(86400);
    expect(s.updatedByApplicationId).toBeNull();
    expect(s.photosRequiredFor).toEqual(['DAMAGED', 'DEFECTIVE_ITEM', 'STOLEN']);
    expect(await page.getByLabel('Stolen').isChecked()).toBe(true);
    expect(await page.getByLabel('Most store credit (percent of the claim)').inputValue()).toBe('60');
    await context.close();
  });

  it("answers a value beyond the limits with the API's message next to the form, and writes nothing", async () => {
    const before = await read();
    const direct = await server.request(`/v1/stores/${owner.store.id}/settings`, {
      method: 'PATCH',
      headers: bearer(await dashboardTokenFor(server, owner.user.id)),
      json: { storeCreditMaxPercentage: 150 },
    });
    expect(direct.status).toBe(400);
    const { message } = await jsonOf(direct, ZError);
    const { context, page } = await signedInPage(browser, server, me());
    await page.goto(settingsUrl());
    await page.getByLabel('Most store credit (percent of the claim)').fill('150');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect((await answer).status()).toBe(400);
    expect(await page.locator('form').getByRole('alert').innerText()).toBe(message);
    // What was typed stays, to be corrected.
    expect(await page.getByLabel('Most store credit (percent of the claim)').inputValue()).toBe('150');
    await expectAccessible(browser, page, 'settings refused');
    expect(await read()).toEqual(before);
    await context.close();
  });

  async function forge(page: Page, form: Record<string, string>) {
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    return page.request.post(settingsUrl(), { form: { csrf, ...form }, headers: { origin: server.baseUrl } });
  }

  it('shows a viewer and an agent the values but no form, and a forged post changes nothing', async () => {
    for (const role of ['viewer', 'agent'] as const) {
      const before = await read();
      const who = await addMember(server, owner.store.id, role);
      const { context, page } = await signedInPage(browser, server, who);
      await page.goto(settingsUrl());
      expect(await page.getByRole('button', { name: 'Save settings' }).count(), role).toBe(0);
      expect(await page.locator('main').innerText()).toContain('Only an owner or admin of the store can change these.');
      if (role === 'viewer') await expectAccessible(browser, page, 'settings, read only');
      const forged = await forge(page, { storeCreditMaxPercentage: '1', storeCreditBonus: '9' });
      expect(forged.status(), role).toBe(403);
      // Past the CSRF and origin checks: the API refused the role (D49).
      expect(await forged.text(), role).toContain('Your role does not allow this');
      expect(await read()).toEqual(before);
      await context.close();
    }
  });

  it('lets an admin save too', async () => {
    const admin = await addMember(server, owner.store.id, 'admin');
    const { context, page } = await signedInPage(browser, server, admin);
    await page.goto(settingsUrl());
    await page.getByLabel('Most store credit (percent of the claim)').fill('45');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.url()).toContain('notice=settingsSaved');
    await expect.poll(async () => (await read()).storeCreditMaxPercentage).toBe(45);
    await context.close();
  });
});

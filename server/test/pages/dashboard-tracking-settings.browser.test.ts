import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
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
import { answered, createOwner, dashboardTokenFor, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** An AfterShip delivery as it arrives, verified over these bytes (D54). */
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, '../tracking/fixtures', name));
const AFTERSHIP = fixture('aftership/stalled.json');
const signed = (secret: string) => createHmac('sha256', secret).update(AFTERSHIP).digest('base64');

/**
 * The settings page's "Tracking" section (D50, D54) in headless Chromium: an owner or admin
 * writes the rules through `PUT …/tracking-settings` and they read back through the API; the
 * API's limits are said next to the form; a source added shows its inbound URL and the secret
 * the service made once, never again; a removed source's deliveries answer 401; other roles get
 * no section, and a forged post is refused by the API (D49, D53).
 */
if (!CHROMIUM) console.warn(`[pages] dashboard tracking settings browser tests skipped: ${NO_CHROMIUM}`);

// Each test signs in and runs axe more than once: on a busy machine that takes longer than the default 60 s.
describe.skipIf(!CHROMIUM)(
  'the tracking section of the dashboard settings page (D50, D54)',
  { timeout: 120_000 },
  () => {
    let server: TestServer;
    let browser: Browser;
    let owner: Owner;
    let dash: string;

    beforeAll(async () => {
      server = await startTestServer();
      owner = await createOwner(server.db, 'dash-tracking');
      dash = await dashboardTokenFor(server, owner.user.id);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    const settingsUrl = () => `${server.baseUrl}/dashboard/stores/${owner.store.id}/settings`;
    const params = () => ({ params: { storeId: owner.store.id } });
    const rules = async () => answered(await server.api(dash).tracking.getSettings(params()), 200).data;
    const sources = async () => answered(await server.api(dash).tracking.listSources(params()), 200).data;
    const me = () => ({ email: owner.user.email, password: owner.password });
    const deliver = (inboundUrl: string, secret: string) =>
      fetch(inboundUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'aftership-hmac-sha256': signed(secret) },
        body: new Uint8Array(AFTERSHIP),
      });

    it('lets the owner save the rules, which read back through the API', async () => {
      expect((await rules()).mode).toBe('off');
      const { context, page } = await signedInPage(browser, server, me());
      await page.goto(settingsUrl());
      expect(await page.getByRole('heading', { level: 2, name: 'Tracking' }).count()).toBe(1);
      expect(await page.getByText('No source yet.').count()).toBe(1);
      await expectAccessible(browser, page, 'tracking settings');
      await expectFormsCarryCsrf(page);
      await screenshots(page, 'dashboard-tracking-settings');
      await page.getByLabel('File claims', { exact: true }).check();
      await page.getByLabel('Days without a carrier scan').fill('10');
      await page.getByLabel('Days past the estimated delivery (lost)').fill('3');
      await page.getByLabel('Act on late packages').check();
      await page.getByLabel('Days past the estimated delivery (late)').fill('2');
      await page.getByLabel('Days after shipping a claim may be filed').fill('60');
      await page.getByLabel('Resolution the claim asks for').selectOption('RESHIP');
      await page.getByRole('button', { name: 'Save tracking rules' }).click();
      await expect.poll(() => page.url()).toContain('notice=trackingSaved');
      expect(await page.locator('output.notice').innerText()).toBe('Tracking rules saved.');
      expect(await rules()).toEqual({
        mode: 'file',
        lostNoMovementDays: 10,
        lostAfterEstimatedDays: 3,
        delayedEnabled: true,
        delayedAfterEstimatedDays: 2,
        claimWindowDays: 60,
        resolutionRequested: 'RESHIP',
      });
      // The page reads them back too.
      expect(await page.getByLabel('File claims', { exact: true }).isChecked()).toBe(true);
      expect(await page.getByLabel('Days without a carrier scan').inputValue()).toBe('10');
      await page.getByLabel('Act on late packages').uncheck();
      await page.getByLabel('Notify only').check();
      await page.getByRole('button', { name: 'Save tracking rules' }).click();
      await expect.poll(async () => [(await rules()).mode, (await rules()).delayedEnabled]).toEqual(['notify', false]);
      await context.close();
    });

    it("answers a day count beyond the limits with the API's message next to the form, and writes nothing", async () => {
      const before = await rules();
      for (const [label, value] of [
        ['Days without a carrier scan', '0'],
        ['Days after shipping a claim may be filed', '1000'],
      ] as const) {
        const name = label === 'Days without a carrier scan' ? 'lostNoMovementDays' : 'claimWindowDays';
        const direct = await server.api(dash).tracking.updateSettings({ ...params(), body: { [name]: Number(value) } });
        expect(direct.status).toBe(400);
        const { message } = direct.body as { message: string };
        const { context, page } = await signedInPage(browser, server, me());
        await page.goto(settingsUrl());
        await page.getByLabel(label).fill(value);
        const answer = page.waitForResponse((r) => r.request().method() === 'POST');
        await page.getByRole('button', { name: 'Save tracking rules' }).click();
        expect((await answer).status()).toBe(400);
        const rulesForm = page.locator('form', { has: page.getByRole('button', { name: 'Save tracking rules' }) });
        expect(await rulesForm.getByRole('alert').innerText()).toBe(message);
        // What was typed stays, to be corrected; the store's defaults form says nothing.
        expect(await page.getByLabel(label).inputValue()).toBe(value);
        expect(await page.getByRole('alert').count()).toBe(1);
        if (value === '0') await expectAccessible(browser, page, 'tracking rules refused');
        expect(await rules()).toEqual(before);
        await context.close();
      }
    });

    it('shows a new source its inbound URL and secret once; a reload never shows the secret; removed, its deliveries answer 401', async () => {
      const { context, page } = await signedInPage(browser, server, me());
      await page.goto(settingsUrl());
      await page.getByLabel('Provider').selectOption('aftership');
      const answer = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Add source' }).click();
      // The answer is the page itself: no redirect, the secret in no address.
      expect((await answer).status()).toBe(200);
      expect(page.url()).not.toContain('svc_trsec_');
      expect(await page.getByRole('heading', { name: 'AfterShip source added' }).count()).toBe(1);
      expect(await page.getByText('Copy the secret now: it will not be shown again.', { exact: false }).count()).toBe(
        1,
      );
      const url = await page.locator('#new-source-url').innerText();
      const secret = await page.locator('#new-source-secret').innerText();
      expect(secret).toMatch(/^svc_trsec_/);
      const [listed] = await sources();
      expect(url).toBe(listed!.inboundUrl);
      await expectAccessible(browser, page, 'tracking source added');
      await expectFormsCarryCsrf(page);
      await screenshots(page, 'dashboard-tracking-source-added');
      // The secret works: a delivery signed with it is taken.
      expect((await deliver(url, secret)).status).toBe(200);
      expect((await deliver(url, 'not-the-secret-at-all')).status).toBe(401);

      await page.goto(settingsUrl());
      expect(await page.content()).not.toContain(secret);
      expect(await page.locator('#new-source-secret').count()).toBe(0);
      const row = page.locator('tr', { hasText: url });
      expect(await row.locator('td').first().innerText()).toBe('AfterShip');
      await expectAccessible(browser, page, 'tracking sources listed');
      await row.getByText('Remove…').click();
      expect(await row.getByText('Deliveries to this URL will be refused from now on.', { exact: false }).count()).toBe(
        1,
      );
      await row.getByRole('button', { name: 'Yes, remove this source' }).click();
      await expect.poll(() => page.url()).toContain('notice=sourceRemoved');
      expect(await page.locator('output.notice').innerText()).toContain('The tracking source is removed');
      expect(await page.locator('tr', { hasText: url }).count()).toBe(0);
      expect(await sources()).toEqual([]);
      expect((await deliver(url, secret)).status).toBe(401);
      await context.close();
    });

    it("takes a secret of the owner's own without repeating it, and says the API's refusal of a short one", async () => {
      const own = 'an-aftership-secret-of-our-own-0123';
      const { context, page } = await signedInPage(browser, server, me());
      await page.goto(settingsUrl());
      await page.getByLabel('Provider').selectOption('easypost');
      await page.getByLabel('Webhook secret (optional)').fill('too-short');
      await page.getByRole('button', { name: 'Add source' }).click();
      const addForm = page.locator('form', { has: page.getByRole('button', { name: 'Add source' }) });
      expect(await addForm.getByRole('alert').innerText()).toContain('secret');
      expect(await page.content()).not.toContain('too-short');
      expect(await page.getByLabel('Provider').inputValue()).toBe('easypost');
      await expectAccessible(browser, page, 'tracking source refused');
      expect(await sources()).toEqual([]);
      await page.getByLabel('Provider').selectOption('ship24');
      await page.getByLabel('Webhook secret (optional)').fill(own);
      await page.getByRole('button', { name: 'Add source' }).click();
      expect(await page.getByRole('heading', { name: 'Ship24 source added' }).count()).toBe(1);
      expect(await page.content()).not.toContain(own);
      expect(await page.locator('#new-source-secret').count()).toBe(0);
      const url = await page.locator('#new-source-url').innerText();
      expect((await sources()).map((s) => [s.provider, s.inboundUrl])).toEqual([['ship24', url]]);
      const ship24 = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${own}` },
        body: new Uint8Array(fixture('ship24/delivered.json')),
      });
      expect(ship24.status).toBe(200);
      await context.close();
    });

    async function forge(page: Page, action: string, form: Record<string, string>) {
      const csrf = await page.locator('input[name="csrf"]').first().inputValue();
      return page.request.post(`${settingsUrl()}/${action}`, {
        form: { csrf, ...form },
        headers: { origin: server.baseUrl },
      });
    }

    it('shows a viewer and an agent no tracking section, and their forged posts change nothing', async () => {
      const [source] = await sources();
      for (const role of ['viewer', 'agent'] as const) {
        const before = [await rules(), await sources()];
        const who = await addMember(server, owner.store.id, role);
        const { context, page } = await signedInPage(browser, server, who);
        await page.goto(settingsUrl());
        expect(await page.getByRole('heading', { name: 'Tracking' }).count(), role).toBe(0);
        expect(await page.getByRole('button', { name: 'Add source' }).count(), role).toBe(0);
        expect(await page.content(), role).not.toContain(source!.inboundUrl);
        if (role === 'agent') await expectAccessible(browser, page, 'settings for an agent');
        for (const [action, form] of [
          ['tracking', { mode: 'file', lostNoMovementDays: '1' }],
          ['tracking-sources', { provider: 'easypost' }],
          [`tracking-sources/${source!.id}/remove`, {}],
        ] as const) {
          const forged = await forge(page, action, form);
          expect(forged.status(), `${role} ${action}`).toBe(403);
          // Past the CSRF and origin checks: the API refused the role (D49).
          expect(await forged.text(), `${role} ${action}`).toContain('Your role does not allow this');
        }
        expect([await rules(), await sources()]).toEqual(before);
        await context.close();
      }
    });

    it('lets an admin save the rules too', async () => {
      const admin = await addMember(server, owner.store.id, 'admin');
      const { context, page } = await signedInPage(browser, server, admin);
      await page.goto(settingsUrl());
      await page.getByLabel('Off', { exact: true }).check();
      await page.getByRole('button', { name: 'Save tracking rules' }).click();
      await expect.poll(() => page.url()).toContain('notice=trackingSaved');
      expect((await rules()).mode).toBe('off');
      await context.close();
    });
  },
);

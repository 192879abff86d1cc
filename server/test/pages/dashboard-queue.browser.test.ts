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
import { addMember, type Person, signedInPage } from '../harness/dashboard';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The claim queue of D50 in headless Chromium: tabs, search, filters, sorting, keyset paging,
 * and bulk actions reporting per claim, with every POST forged in the ways a browser allows.
 */
if (!CHROMIUM) console.warn(`[pages] claim queue browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the claim queue in headless Chromium (D50)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let other: ClaimStore;
  let otherClaim: string;
  let owner: Person;
  const claimIds: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'queue');
    other = await claimStore(server, 'queue-other');
    owner = { userId: shop.owner.user.id, email: shop.owner.user.email, password: shop.owner.password };
    // 55 claims: more than a page of 50.
    for (let batch = 0; batch < 55; batch += 11) {
      await Promise.all(
        Array.from({ length: 11 }, async (_, i) => {
          const n = 7000 + batch + i;
          await shop.putOrder(`${n}`, { sourceOrderNumber: `#${n}` });
          const body = claimBody({
            email: `shopper-${n}@example.com`,
            ...(n === 7003 ? { fulfillmentIssues: [{ issues: [{ issueType: 'STOLEN' as const, quantity: 1 }] }] } : {}),
          });
          claimIds[batch + i] = await shop.fileId(`${n}`, body);
        }),
      );
    }
    await other.putOrder('9001', { sourceOrderNumber: '#9001' });
    otherClaim = await other.fileId('9001');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const queueUrl = (query = '') => `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims${query}`;
  const stateOf = async (claimId: string) =>
    (await server.db.selectFrom('claims').select('claimState').where('id', '=', claimId).executeTakeFirstOrThrow())
      .claimState;
  const rows = (page: Page) => page.locator('tbody tr');

  it('shows the "To do" tab 50 at a time, oldest first, with "Next page" to the rest', async () => {
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(queueUrl());
    expect(await page.getByRole('link', { name: 'To do' }).getAttribute('aria-current')).toBe('page');
    expect(await rows(page).count()).toBe(50);
    await expectFormsCarryCsrf(page);
    await expectAccessible(browser, page, 'claim queue');
    await screenshots(page, 'dashboard-queue');
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(() => rows(page).count()).toBe(5);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByLabel('Sort').selectOption('desc');
    await page.getByRole('button', { name: 'Apply' }).click();
    const newest = await server.db
      .selectFrom('claims as c')
      .innerJoin('orders as o', 'o.id', 'c.orderId')
      .select('o.sourceOrderNumber')
      .where('c.storeId', '=', shop.owner.store.id)
      .orderBy('c.createdAt', 'desc')
      .orderBy('c.id', 'desc')
      .executeTakeFirstOrThrow();
    await expect.poll(() => rows(page).first().textContent()).toContain(newest.sourceOrderNumber);
    // Another tab, empty: it says so, and is accessible too.
    await page.getByRole('link', { name: 'Declined' }).click();
    await expect.poll(() => page.getByText('No claims here.').count()).toBe(1);
    await expectAccessible(browser, page, 'empty tab');
    await context.close();
  });

  it('finds a claim by order number, e-mail or id, and never one of another store', async () => {
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(queueUrl('?tab=all'));
    for (const [q, expected] of [
      ['#7010', '#7010'],
      ['shopper-7011@example.com', '#7011'],
      [claimIds[12]!, '#7012'],
    ] as const) {
      await page.getByLabel('Search').fill(q);
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => rows(page).count()).toBe(1);
      expect(await rows(page).first().textContent()).toContain(expected);
    }
    for (const q of [otherClaim, '#9001', 'clm_doesnotexist']) {
      await page.getByLabel('Search').fill(q);
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.getByText('No claims here.').count()).toBe(1);
    }
    await page.goto(queueUrl('?tab=all&type=STOLEN'));
    expect(await rows(page).count()).toBe(1);
    await context.close();
  });

  it('moves, declines and messages a mixed selection, reporting each claim', async () => {
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(queueUrl());
    await page.getByLabel(`Select claim ${claimIds[0]}`).check();
    await page.getByLabel(`Select claim ${claimIds[1]}`).check();
    // A claim of another store slipped into the form answers as an unknown one does.
    await page.evaluate((id) => {
      const box = document.querySelector('input[name="claimId"]') as HTMLInputElement;
      const forged = box.cloneNode() as HTMLInputElement;
      forged.value = id;
      forged.checked = true;
      forged.id = 'forged';
      box.form!.appendChild(forged);
    }, otherClaim);
    await page.getByLabel('Reason').selectOption('PACKAGE_ARRIVED');
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Decline: 2 of 3 claims/ }).count()).toBe(1);
    expect(await page.getByText(`${otherClaim}: refused: no such claim in this store`).count()).toBe(1);
    expect(await stateOf(claimIds[0]!)).toBe('DENIED');
    expect(await stateOf(otherClaim)).toBe('NEW');
    await expectAccessible(browser, page, 'bulk results');
    await screenshots(page, 'dashboard-queue-bulk');
    // Declined claims cannot be moved back to "Open" here (D22): refused per claim, the other moves.
    await page.goto(queueUrl('?tab=all&order=asc'));
    await page.getByLabel(`Select claim ${claimIds[0]}`).check();
    await page.getByLabel(`Select claim ${claimIds[2]}`).check();
    await page.getByLabel('New state').selectOption('WAITING_FOR_CUSTOMER');
    await page.getByRole('button', { name: 'Move' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Move: 1 of 2 claims/ }).count()).toBe(1);
    expect(await stateOf(claimIds[2]!)).toBe('WAITING_FOR_CUSTOMER');
    await page.goto(queueUrl('?tab=waiting_on_shopper'));
    await page.getByLabel(`Select claim ${claimIds[2]}`).check();
    await page.getByLabel('Message to the shoppers').fill('Could you send a photo of the box?');
    await page.getByRole('button', { name: 'Send message' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Send message: 1 of 1 claims/ }).count()).toBe(1);
    const messages = await server.db
      .selectFrom('claimMessages')
      .select(['message', 'senderType'])
      .where('claimId', '=', claimIds[2]!)
      .execute();
    expect(messages).toEqual([
      expect.objectContaining({ message: 'Could you send a photo of the box?', senderType: 'brand' }),
    ]);
    await context.close();
  });

  it('acts once when the same bulk form is sent twice', async () => {
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(queueUrl('?tab=all&q=%237020'));
    const form = page.locator('form[method="post"]').filter({ has: page.locator('input[name="claimId"]') });
    const fields = Object.fromEntries(
      await form
        .locator('input[type="hidden"]')
        .evaluateAll((inputs) => inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value])),
    );
    const post = () =>
      page.request.post(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims/bulk`, {
        form: { ...fields, claimId: claimIds[20]!, action: 'message', message: 'Once only' },
        headers: { origin: server.baseUrl },
        maxRedirects: 0,
      });
    const [first, second] = [await post(), await post()];
    expect(first.status()).toBe(303);
    expect(second.headers().location).toContain('r=replayed');
    const count = await server.db
      .selectFrom('claimMessages')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .where('claimId', '=', claimIds[20]!)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    await context.close();
  });

  it('refuses forged and cross-site posts, and changes nothing', async () => {
    const { context, page } = await signedInPage(browser, server, owner);
    await page.goto(queueUrl());
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const bulk = `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims/bulk`;
    const form = { claimId: claimIds[30]!, action: 'decline', reason: 'OTHER', idempotencyKey: crypto.randomUUID() };
    for (const [label, extra, headers] of [
      ['no CSRF token', {}, { origin: server.baseUrl }],
      ['a wrong CSRF token', { csrf: 'x'.repeat(43) }, { origin: server.baseUrl }],
      ['another origin', { csrf }, { origin: 'https://evil.example' }],
      ['a cross-site fetch', { csrf }, { 'sec-fetch-site': 'cross-site', origin: server.baseUrl }],
      ['no origin at all', { csrf }, {}],
    ] as const) {
      const res = await page.request.post(bulk, { form: { ...form, ...extra }, headers, maxRedirects: 0 });
      expect(res.status(), label).toBe(403);
    }
    // Another session's token is not this session's.
    const { context: second, page: theirs } = await signedInPage(browser, server, owner);
    await theirs.goto(queueUrl());
    const theirCsrf = await theirs.locator('input[name="csrf"]').first().inputValue();
    const res = await page.request.post(bulk, {
      form: { ...form, csrf: theirCsrf },
      headers: { origin: server.baseUrl },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    expect(await stateOf(claimIds[30]!)).toBe('NEW');
    await second.close();
    await context.close();
  });

  it("offers a viewer no bulk actions, and refuses the viewer's forged ones claim by claim", async () => {
    const viewer = await addMember(server, shop.owner.store.id, 'viewer');
    const { context, page } = await signedInPage(browser, server, viewer);
    await page.goto(queueUrl());
    expect(await rows(page).count()).toBe(50);
    expect(await page.getByRole('button', { name: 'Decline' }).count()).toBe(0);
    expect(await page.locator('input[name="claimId"]').count()).toBe(0);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const res = await page.request.post(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims/bulk`, {
      form: { csrf, claimId: claimIds[31]!, action: 'decline', reason: 'OTHER', idempotencyKey: crypto.randomUUID() },
      headers: { origin: server.baseUrl },
      maxRedirects: 0,
    });
    expect(res.headers().location).toContain('r=forbidden');
    expect(await stateOf(claimIds[31]!)).toBe('NEW');
    await context.close();
  });
});

import { randomBytes } from 'node:crypto';
import { ZClaim } from '@protection-service/contract';
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
import { CLAIM_TEST_SCOPES, claimBody, orderBody } from '../harness/claims';
import { bearer, createApp, createOwner, installWithToken, type Owner } from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import type { TestServer } from '../harness/server';
import { type DeliveryRig, type Receiver, signatureOf, startDeliveryRig } from '../harness/webhooks';

/**
 * D41 in headless Chromium: the shopper follows the claim's `viewClaimUrl`, reads the claim
 * and answers the merchant; the API's claim record shows the message, and the partner's
 * webhook receives `message/created` from a real delivering process, as for any message.
 */
if (!CHROMIUM) console.warn(`[pages] claim page browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)("the shopper's claim page in headless Chromium (D41)", () => {
  let rig: DeliveryRig;
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let owner: Owner;
  let token: string;
  let webhookSecret: string;

  beforeAll(async () => {
    rig = await startDeliveryRig();
    ({ server, receiver } = rig);
    owner = await createOwner(server.db, 'claim-page');
    await server.db.updateTable('stores').set({ name: 'Harbor & Pine' }).where('id', '=', owner.store.id).execute();
    const app = await createApp(server, owner.user.id, {
      requestedScopes: CLAIM_TEST_SCOPES,
      webhookUrl: `${receiver.url}/hook`,
      webhookTopics: ['message/created'],
    });
    webhookSecret = app.webhookSecret;
    ({ accessToken: token } = await installWithToken(server, app.clientId, owner.store.id, CLAIM_TEST_SCOPES));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  const api = (path: string, method = 'GET', json?: unknown) =>
    server.request(path, { method, headers: bearer(token), ...(json === undefined ? {} : { json }) });

  /** An order with named line items and a claim on one of them; answers the claim id. */
  async function fileClaim(sourceOrderId: string): Promise<string> {
    const order = await api(
      `/v1/orders/${sourceOrderId}`,
      'PUT',
      orderBody({
        sourceOrderNumber: '#2048',
        lineItems: [
          { sourceItemId: 'li-lamp', name: 'Brass desk lamp', quantity: 2, price: 60, isShippable: true },
          { sourceItemId: 'li-shade', name: 'Linen shade', quantity: 1, price: 20, isShippable: true },
        ],
      }),
    );
    expect(order.status).toBe(200);
    const filed = await api(
      `/v1/claims/${sourceOrderId}`,
      'POST',
      claimBody({
        email: 'ann@example.com',
        fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 2, sourceItemId: 'li-lamp' }] }],
      }),
    );
    expect(filed.status).toBe(200);
    return filed.headers.get('location')!.replace('/v1/claims/', '');
  }

  const record = async (claimId: string) => jsonOf(await api(`/v1/claims/${claimId}`), ZClaim);

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    return context.newPage();
  }

  it('shows the claim and sends the shopper message to the API and the webhook', async () => {
    const claimId = await fileClaim('o-claim-page');
    const merchantSays = await api(`/v1/claims/${claimId}/messages`, 'POST', {
      message: 'Sorry to hear that! Could you tell us whether the box was damaged too?',
      senderType: 'brand',
      authorName: 'Mia at Harbor & Pine',
    });
    expect(merchantSays.status).toBe(200);
    const { viewClaimUrl } = await record(claimId);
    // The link is built from PUBLIC_BASE_URL, which the test server sets to its own address.
    expect(viewClaimUrl.startsWith(`${server.baseUrl}/claims/view/`)).toBe(true);

    const page = await newPage();
    try {
      const answer = await page.goto(viewClaimUrl);
      expect(answer!.status()).toBe(200);
      expect(answer!.headers()['referrer-policy']).toBe('no-referrer');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your claim with Harbor & Pine');
      const main = await page.locator('main').innerText();
      expect(main).toContain('#2048');
      expect(main).toContain('Received: the store will look at it soon');
      expect(main).toMatch(/Brass desk lamp\s+× 2/);
      expect(main).not.toContain('Linen shade');
      expect(main).toContain('Mia at Harbor & Pine');
      expect(main).not.toContain(claimId);
      await screenshots(page, 'claim');
      await expectAccessible(browser, page, 'claim page');
      await expectFormsCarryCsrf(page);

      const text = 'Yes, the box was crushed on one corner.\nPhotos are on their way.';
      await page.getByLabel('Message', { exact: true }).fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.locator('.messages li').count()).toBe(2);
      const mine = page.locator('.messages li.mine');
      expect(await mine.locator('.from').innerText()).toMatch(/^You /);
      expect(await mine.locator('.body').innerText()).toBe(text);
      await screenshots(page, 'claim-after-message');

      // The API shows it like any other message (D25), oldest first.
      const after = await record(claimId);
      expect(after.claimMessages.map((m) => [m.senderType, m.message, m.authorName])).toEqual([
        ['brand', 'Sorry to hear that! Could you tell us whether the box was damaged too?', 'Mia at Harbor & Pine'],
        ['customer', text, 'ann@example.com'],
      ]);
      // …and the partner's webhook receives message/created, signed (D32).
      await expect
        .poll(
          () =>
            receiver
              .at('/hook')
              .map((r) => JSON.parse(r.raw) as { topic: string; body: { senderType: string; message: string } })
              .filter((e) => e.topic === 'message/created' && e.body.senderType === 'customer').length,
          { timeout: 20_000 },
        )
        .toBe(1);
      const delivery = receiver.at('/hook').find((r) => r.raw.includes('"senderType":"customer"'))!;
      expect(JSON.parse(delivery.raw).body).toMatchObject({ claimId, storeId: owner.store.id, message: text });
      expect(delivery.headers['x-webhook-signature']).toBe(`v1,${signatureOf(webhookSecret, delivery)}`);
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('shows a store credit once the claim is approved, and a message as text', async () => {
    const claimId = await fileClaim('o-claim-credit');
    const approved = await api(`/v1/claims/${claimId}/approve`, 'POST', {
      resolutions: [{ type: 'STORE_CREDIT', paidValue: 120 }],
    });
    expect(approved.status).toBe(200);
    const { viewClaimUrl } = await record(claimId);
    const page = await newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(viewClaimUrl);
      const main = await page.locator('main').innerText();
      expect(main).toContain('Approved');
      expect(main).toMatch(/Store credit code \S+ worth [\d.]+ USD/);
      await page.getByLabel('Message', { exact: true }).fill('<img src=x onerror=alert(1)>');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.locator('.messages li.mine .body').innerText()).toBe('<img src=x onerror=alert(1)>');
      expect(await page.locator('main img').count()).toBe(0);
      expect(dialogs).toEqual([]);
      await screenshots(page, 'claim-approved');
    } finally {
      await page.context().close();
    }
  }, 90_000);

  it('answers a forged link with a 404 page', async () => {
    const forged = randomBytes(32).toString('hex') + randomBytes(16).toString('base64url').slice(0, 22);
    const page = await newPage();
    try {
      const answer = await page.goto(`${server.baseUrl}/claims/view/${forged}`);
      expect(answer!.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Claim not found');
      await screenshots(page, 'claim-not-found');
      await expectAccessible(browser, page, 'claim 404');
    } finally {
      await page.context().close();
    }
  }, 90_000);
});

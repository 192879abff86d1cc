import { ZClaim } from '@protection-service/contract';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectFormsCarryCsrf,
  launchChromium,
  NO_CHROMIUM,
  screenshots,
} from '../harness/browser';
import { CLAIM_TEST_SCOPES, type ClaimStore, claimBody, claimStore, orderBody } from '../harness/claims';
import { addMember, type Person, signedInPage } from '../harness/dashboard';
import { bearer, createApp, createOwner, installWithToken, type Owner } from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import { mailOf } from '../harness/mail';
import type { TestServer } from '../harness/server';
import { type DeliveryRig, type Receiver, startDeliveryRig } from '../harness/webhooks';

/**
 * The dashboard's claim page (D50) in headless Chromium against a real server and a
 * delivering worker: what it shows, its five forms through the API (D22, D25, D26, D51), a
 * double submit acting once (D33), two people deciding one claim, shopper text as text, photos
 * only on request, roles (D49), and another store's claim as an unknown one (D7).
 */
if (!CHROMIUM) console.warn(`[pages] dashboard claim browser tests skipped: ${NO_CHROMIUM}`);

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe.skipIf(!CHROMIUM)("the dashboard's claim page in headless Chromium (D50)", () => {
  let rig: DeliveryRig;
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let owner: Owner;
  let ownerLogin: Person;
  let token: string;
  let other: ClaimStore;
  let orders = 0;
  /** The owner's browser, signed in once: each test opens its own page in it. */
  let ownerContext: BrowserContext | undefined;

  beforeAll(async () => {
    rig = await startDeliveryRig();
    ({ server, receiver } = rig);
    owner = await createOwner(server.db, 'dash-claim');
    ownerLogin = { userId: owner.user.id, email: owner.user.email, password: owner.password };
    const app = await createApp(server, owner.user.id, {
      requestedScopes: CLAIM_TEST_SCOPES,
      webhookUrl: `${receiver.url}/hook`,
      webhookTopics: ['claim/created', 'claim/approved', 'claim/denied', 'message/created'],
    });
    ({ accessToken: token } = await installWithToken(server, app.clientId, owner.store.id, CLAIM_TEST_SCOPES));
    other = await claimStore(server, 'dash-claim-other');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  const api = (path: string, method = 'GET', json?: unknown) =>
    server.request(path, { method, headers: bearer(token), ...(json === undefined ? {} : { json }) });
  const claimOf = async (claimId: string) => jsonOf(await api(`/v1/claims/${claimId}`), ZClaim);
  const claimUrl = (claimId: string) => `${server.baseUrl}/dashboard/stores/${owner.store.id}/claims/${claimId}`;

  /** An order with a lamp line, a shipped fulfillment, and a claim on the lamp; answers the claim id. */
  async function fileClaim(images: string[] = []): Promise<string> {
    const sourceOrderId = `o-dash-claim-${++orders}`;
    const order = await api(
      `/v1/orders/${sourceOrderId}`,
      'PUT',
      orderBody({
        sourceOrderNumber: `#30${orders}`,
        lineItems: [{ sourceItemId: 'li-lamp', name: 'Brass desk lamp', quantity: 3, price: 60, isShippable: true }],
      }),
    );
    expect(order.status).toBe(200);
    const shipped = await api(`/v1/orders/${sourceOrderId}/fulfillments/f-1`, 'PUT', {
      fulfillmentStatus: 'IN_TRANSIT',
      trackingCompany: 'UPS',
      trackingNumber: ['1Z999AA10123456784'],
    });
    expect(shipped.status).toBe(200);
    const filed = await api(
      `/v1/claims/${sourceOrderId}`,
      'POST',
      claimBody({
        email: 'ann@example.com',
        fulfillmentIssues: [
          {
            sourceFulfillmentId: 'f-1',
            issues: [{ issueType: 'DAMAGED', quantity: 2, sourceItemId: 'li-lamp', details: 'Shade cracked' }],
          },
        ],
      }),
    );
    expect(filed.status).toBe(200);
    const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
    if (images.length > 0) {
      // Stored as a partner could have sent them in an earlier version: the page must not trust them.
      await server.db
        .updateTable('claimItems')
        .set({ images: JSON.stringify(images) })
        .where('claimId', '=', claimId)
        .execute();
    }
    return claimId;
  }

  const hooks = (topic: string, claimId: string) =>
    receiver
      .at('/hook')
      .map((r) => JSON.parse(r.raw) as { topic: string; body: { claimId?: string } & Record<string, unknown> })
      .filter((e) => e.topic === topic && e.body.claimId === claimId);

  /** A new page of the owner's browser, signing in the first time (signing in polls: inside a test). */
  async function ownerPage(): Promise<Page> {
    if (!ownerContext) ({ context: ownerContext } = await signedInPage(browser, server, ownerLogin));
    return ownerContext.newPage();
  }
  const closePages = () => Promise.all((ownerContext?.pages() ?? []).map((p) => p.close()));
  const main = (page: Page) => page.locator('main').innerText();

  /** Picks "Store credit" for the item and types the amount. */
  async function chooseCredit(page: Page, amount: string): Promise<void> {
    await page.getByLabel('Resolution').selectOption({ label: 'Store credit' });
    await page.getByLabel('Amount').fill(amount);
  }

  it('approves with a store credit after a preview: the API, the shopper page, the webhook and the e-mail', async () => {
    const claimId = await fileClaim();
    const page = await ownerPage();
    try {
      await page.goto(claimUrl(claimId));
      const text = await main(page);
      expect(text).toContain('Claim on order #30');
      expect(text).toContain('New');
      expect(text).toContain('Brass desk lamp');
      expect(text).toContain('Shade cracked');
      expect(text).toContain('1Z999AA10123456784');
      expect(text).toContain('ann@example.com');
      expect(await page.getByRole('link', { name: /^Order #30/ }).getAttribute('href')).toBe(
        `/dashboard/stores/${owner.store.id}/orders/o-dash-claim-${orders}`,
      );
      await expectFormsCarryCsrf(page);
      await expectAccessible(browser, page, 'claim page with forms');
      await screenshots(page, 'dashboard-claim');

      await chooseCredit(page, '40');
      await page.getByRole('button', { name: 'Preview' }).click();
      const preview = page.getByRole('region', { name: 'Preview' });
      await expect.poll(() => preview.count()).toBe(1);
      expect(await preview.getByRole('row').nth(1).innerText()).toMatch(/Brass desk lamp\s+40\s+0\s+40\s+USD/);
      // Nothing issued yet; the form keeps what was typed.
      expect((await claimOf(claimId)).claimState).toBe('NEW');
      expect(await page.getByLabel('Amount').inputValue()).toBe('40');
      await expectAccessible(browser, page, 'claim page with a preview');
      await screenshots(page, 'dashboard-claim-preview');

      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await expect.poll(() => page.locator('output.notice').innerText()).toBe('Done.');
      const claim = await claimOf(claimId);
      expect(claim.claimState).toBe('APPROVED');
      expect(claim.claimStoreCredits.map((s) => [s.creditValue, s.totalValue])).toEqual([[40, 40]]);
      expect(await main(page)).toContain(`Store credit ${claim.claimStoreCredits[0]!.code}`);

      const shopper = await ownerPage();
      await shopper.goto(claim.viewClaimUrl);
      expect(await main(shopper)).toMatch(/Store credit code \S+ worth 40(\.00)? USD/);
      await expect.poll(() => hooks('claim/approved', claimId).length, { timeout: 20_000 }).toBe(1);
      const mail = await mailOf(server, claimId);
      // The store credit's e-mail to the shopper is in the outbox (D26, D42).
      expect(mail.filter((m) => m.kind === 'store_credit').map((m) => [m.storeCreditCode, m.recipient])).toEqual([
        [claim.claimStoreCredits[0]!.code, 'ann@example.com'],
      ]);
    } finally {
      await closePages();
    }
  }, 90_000);

  it('moves only to allowed states, replies to the shopper, adds a note only staff see, declines', async () => {
    const claimId = await fileClaim();
    const page = await ownerPage();
    try {
      await page.goto(claimUrl(claimId));
      const offered = await page.getByLabel('New state').locator('option').allInnerTexts();
      expect(offered).toEqual([
        'Open',
        'In conversation',
        'Waiting on shopper',
        'Waiting on store',
        'Waiting on protection team',
        'Dismissed',
        'Set aside',
      ]);
      await page.getByLabel('New state').selectOption({ label: 'Waiting on store' });
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      await expect.poll(async () => (await claimOf(claimId)).claimState).toBe('WAITING_FOR_BRAND');
      expect(await page.locator('output.notice').innerText()).toBe('Done.');

      await page.getByLabel('Message', { exact: true }).fill('We are sending a new lamp.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      await expect.poll(() => page.locator('output.notice').count()).toBe(1);
      const note = 'Staff only: shopper filed twice last year';
      await page.getByLabel('Note', { exact: true }).fill(note);
      await page.getByRole('button', { name: 'Add note' }).click();
      await expect.poll(() => main(page)).toContain(note);
      expect(await main(page)).toContain('We are sending a new lamp.');

      await page.getByLabel('Reason').selectOption({ label: 'Package arrived' });
      await page.getByLabel('Details', { exact: true }).fill('Carrier shows it was delivered.');
      await page.getByRole('button', { name: 'Decline', exact: true }).click();
      await expect.poll(async () => (await claimOf(claimId)).claimState).toBe('DENIED');
      const declined = await main(page);
      expect(declined).toContain('Package arrived');
      expect(declined).toContain('Carrier shows it was delivered.');
      // Declined: only the move D22 allows from DENIED, no approve or decline form.
      expect(await page.getByLabel('New state').locator('option').allInnerTexts()).toEqual(['Closed']);
      expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
      await expectAccessible(browser, page, 'declined claim');

      const shopper = await ownerPage();
      await shopper.goto((await claimOf(claimId)).viewClaimUrl);
      const seen = await main(shopper);
      expect(seen).toContain('We are sending a new lamp.');
      expect(seen).not.toContain(note);
      await expect.poll(() => hooks('message/created', claimId).length, { timeout: 20_000 }).toBe(1);
      await expect.poll(() => hooks('claim/denied', claimId).length, { timeout: 20_000 }).toBe(1);
      const events = await server.db.selectFrom('webhookEvents').select('body').execute();
      expect(events.filter((e) => JSON.stringify(e.body).includes(note))).toEqual([]);
      expect(receiver.at('/hook').filter((r) => r.raw.includes(note))).toEqual([]);
    } finally {
      await closePages();
    }
  }, 90_000);

  /** The posted fields of the form around `button`, as the browser would send them. */
  async function formFields(page: Page, button: string): Promise<{ action: string; fields: Record<string, string> }> {
    const form = page.locator('form', { has: page.getByRole('button', { name: button, exact: true }) });
    const action = (await form.getAttribute('action'))!;
    const fields = await form.evaluate((f) => {
      const out: Record<string, string> = {};
      for (const [k, v] of new FormData(f as HTMLFormElement)) out[k] = String(v);
      return out;
    });
    return { action: `${server.baseUrl}${action}`, fields };
  }

  it('acts once on a double submit and says the second was done already', async () => {
    const claimId = await fileClaim();
    // A second claim on the same order, for the last lamp: linked from the first, as the shopper's too.
    const sibling = await api(
      `/v1/claims/o-dash-claim-${orders}`,
      'POST',
      claimBody({
        email: 'ann@example.com',
        fulfillmentIssues: [{ issues: [{ issueType: 'MISSING_ITEM', quantity: 1, sourceItemId: 'li-lamp' }] }],
      }),
    );
    expect(sibling.status).toBe(200);
    const siblingId = sibling.headers.get('location')!.replace('/v1/claims/', '');
    const page = await ownerPage();
    try {
      await page.goto(claimUrl(claimId));
      for (const list of ['Other claims on this order', 'Other claims by this e-mail']) {
        const links = page.locator(`h2:text-is("${list}") + ul a`);
        expect(await links.allInnerTexts()).toContain(`Claim ${siblingId}`);
      }
      expect(await page.getByRole('link', { name: `Claim ${claimId}` }).count()).toBe(0);
      await chooseCredit(page, '25');
      const { action, fields } = await formFields(page, 'Approve');
      const headers = { origin: server.baseUrl };
      const first = await page.request.post(action, { form: fields, headers });
      const second = await page.request.post(action, { form: fields, headers });
      expect(new URL(first.url()).searchParams.get('notice')).toBe('done');
      expect(new URL(second.url()).searchParams.get('notice')).toBe('replayed');
      expect(await second.text()).toContain('it was done once, not twice');
      const claim = await claimOf(claimId);
      expect(claim.claimResolutions).toHaveLength(1);
      expect(claim.claimStoreCredits).toHaveLength(1);
    } finally {
      await closePages();
    }
  }, 90_000);

  it('two people deciding one claim: one wins (an agent may approve, D49), the other is told', async () => {
    const claimId = await fileClaim();
    const agent = await addMember(server, owner.store.id, 'agent');
    const a = await signedInPage(browser, server, agent);
    const b = { page: await ownerPage() };
    try {
      await a.page.goto(claimUrl(claimId));
      await b.page.goto(claimUrl(claimId));
      await a.page.getByRole('button', { name: 'Approve', exact: true }).click();
      await expect.poll(() => a.page.locator('output.notice').innerText()).toBe('Done.');
      await b.page.getByLabel('Reason').selectOption({ label: 'Not covered' });
      await b.page.getByRole('button', { name: 'Decline', exact: true }).click();
      await expect
        .poll(() => b.page.locator('output.notice').innerText())
        .toBe('Someone changed this first. Here is how it stands now.');
      expect(await main(b.page)).toContain('Approved');
      expect((await claimOf(claimId)).claimState).toBe('APPROVED');
    } finally {
      await a.context.close();
      await closePages();
    }
  }, 90_000);

  it("shows the shopper's words as text, and photos only on request, https only", async () => {
    const claimId = await fileClaim([
      'https://images.example/lamp.png',
      'javascript:alert(1)',
      'http://images.example/x.png',
    ]);
    const hostile = '<script>alert(1)</script>';
    await server.db
      .updateTable('claims')
      .set({ authorName: `Ann ${hostile}` })
      .where('id', '=', claimId)
      .execute();
    await server.db
      .updateTable('claimItems')
      .set({ details: `Cracked ${hostile}` })
      .where('claimId', '=', claimId)
      .execute();
    const page = await ownerPage();
    // The shopper writes on their own page (D41).
    await page.goto((await claimOf(claimId)).viewClaimUrl);
    await page.getByLabel('Message', { exact: true }).fill(`Hello ${hostile}`);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.messages li').count()).toBe(1);
    const fetched: string[] = [];
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.route('http*://images.example/**', (route) => {
      fetched.push(route.request().url());
      return route.fulfill({ contentType: 'image/png', body: PNG });
    });
    try {
      const first = await page.goto(claimUrl(claimId));
      expect(first!.headers()['content-security-policy']).toContain("img-src 'self';");
      const text = await main(page);
      expect(text).toContain(`Ann ${hostile}`);
      expect(text).toContain(`Cracked ${hostile}`);
      expect(text).toContain(`Hello ${hostile}`);
      expect(text).toContain('3 photos');
      expect(await page.locator('main img').count()).toBe(0);
      expect(await page.locator('main script').count()).toBe(0);

      await page.getByRole('link', { name: 'Show photos' }).click();
      await expect.poll(() => page.url()).toContain('photos=1');
      const shown = await page.request.get(page.url());
      expect(shown.headers()['content-security-policy']).toContain("img-src 'self' https:;");
      const images = page.locator('main img');
      expect(await images.count()).toBe(1);
      expect(await images.getAttribute('src')).toBe('https://images.example/lamp.png');
      const after = await main(page);
      expect(after).toContain('javascript:alert(1)');
      expect(after).toContain('http://images.example/x.png');
      expect(await page.locator('main a[href^="javascript:"], main a[href^="http://images"]').count()).toBe(0);
      expect(fetched).toEqual(['https://images.example/lamp.png']);
      expect(dialogs).toEqual([]);
    } finally {
      await closePages();
    }
  }, 90_000);

  it('approves with JavaScript disabled: preview, approve, done', async () => {
    const claimId = await fileClaim();
    const { context, page } = await signedInPage(browser, server, ownerLogin, { javaScriptEnabled: false });
    try {
      await page.goto(claimUrl(claimId));
      await chooseCredit(page, '15.50');
      await page.getByRole('button', { name: 'Preview' }).click();
      await expect.poll(() => page.getByRole('region', { name: 'Preview' }).count()).toBe(1);
      expect(await page.getByRole('region', { name: 'Preview' }).innerText()).toMatch(/15\.5\s+0\s+15\.5\s+USD/);
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await expect.poll(() => page.locator('output.notice').innerText()).toBe('Done.');
      expect((await claimOf(claimId)).claimStoreCredits.map((s) => s.creditValue)).toEqual([15.5]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("answers a bad amount with the API's message, not a failure", async () => {
    const claimId = await fileClaim();
    const page = await ownerPage();
    try {
      await page.goto(claimUrl(claimId));
      await chooseCredit(page, 'twelve');
      const answer = page.waitForResponse((r) => r.url().endsWith('/approve'));
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      expect((await answer).status()).toBe(400);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('This was not done');
      expect(await page.getByRole('alert').innerText()).toMatch(/paidValue/);
      expect((await claimOf(claimId)).claimState).toBe('NEW');
    } finally {
      await closePages();
    }
  }, 90_000);

  it('a viewer sees no form, and a forged post changes nothing (D49)', async () => {
    const claimId = await fileClaim();
    const viewer = await addMember(server, owner.store.id, 'viewer');
    const v = await signedInPage(browser, server, viewer);
    try {
      await v.page.goto(claimUrl(claimId));
      expect(await main(v.page)).toContain('Brass desk lamp');
      expect(await v.page.locator('main form').count()).toBe(0);
      const csrf = await v.page.locator('form.signout input[name="csrf"]').inputValue();
      const forged = await v.page.request.post(`${claimUrl(claimId)}/approve`, {
        form: { csrf, idempotencyKey: crypto.randomUUID(), resolution_0: 'REFUND', quantity_0: '1', amount_0: '' },
        headers: { origin: server.baseUrl },
      });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toContain('Your role does not allow this');
      const claim = await claimOf(claimId);
      expect([claim.claimState, claim.claimResolutions.length]).toEqual(['NEW', 0]);
    } finally {
      await v.context.close();
    }
  }, 90_000);

  it("answers another store's claim exactly as an unknown one (D7)", async () => {
    await other.putOrder('o-elsewhere');
    const theirs = await other.fileId('o-elsewhere');
    const page = await ownerPage();
    try {
      const elsewhere = await page.goto(claimUrl(theirs));
      expect(elsewhere!.status()).toBe(404);
      const body = await main(page);
      const unknown = await page.goto(claimUrl('clm_doesnotexist000000000'));
      expect(unknown!.status()).toBe(404);
      expect(await main(page)).toBe(body);
      const forged = await page.request.post(`${claimUrl(theirs)}/note`, {
        form: {
          csrf: await page.locator('form.signout input[name="csrf"]').inputValue(),
          idempotencyKey: crypto.randomUUID(),
          note: 'not yours',
        },
        headers: { origin: server.baseUrl },
      });
      expect(forged.status()).toBe(404);
    } finally {
      await closePages();
    }
  }, 90_000);
});

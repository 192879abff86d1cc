import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluatePackageNow } from '../../src/domain/tracking-claims/evaluate';
import { CHROMIUM, expectAccessible, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { addMember, signedInPage } from '../harness/dashboard';
import { answered, bearer, dashboardTokenFor } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The claim page's tracking (D50, D54) in headless Chromium against a real server: each
 * package of the fulfillments the claim is about, with its status in words, its events newest
 * first and the rules' decisions, the one that filed the claim marked; the order page's
 * one-line summary of each package.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard claim tracking browser tests skipped: ${NO_CHROMIUM}`);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

// Each test renders a page or two through axe: minutes on a busy machine, not seconds.
describe.skipIf(!CHROMIUM)("the claim page's tracking in headless Chromium (D54)", { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let ownerContext: BrowserContext | undefined;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    shop = await claimStore(server, 'dash-tracking');
    // The owner sets the rules to file claims (D54), through the route the settings page uses.
    const dashboard = await dashboardTokenFor(server, shop.owner.user.id);
    const settings = await server
      .api(dashboard)
      .tracking.updateSettings({ params: { storeId: shop.owner.store.id }, body: { mode: 'file' } });
    expect(answered(settings, 200).data.mode).toBe('file');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const claimUrl = (claimId: string) => `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims/${claimId}`;
  const orderUrl = (sourceOrderId: string) =>
    `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/orders/${sourceOrderId}`;

  async function ownerPage(): Promise<Page> {
    if (!ownerContext) {
      const who = { email: shop.owner.user.email, password: shop.owner.password };
      ({ context: ownerContext } = await signedInPage(browser, server, who));
    }
    return ownerContext.newPage();
  }

  /** A protected order of two mugs; fulfillment f-1 ships them with `trackingNumber` (its PUT is the first event unless FULFILLED). */
  async function shippedOrder(trackingNumber: string, status = 'IN_TRANSIT'): Promise<string> {
    const sourceOrderId = `o-dash-trk-${++n}`;
    await shop.putOrder(sourceOrderId, {
      sourceOrderNumber: `#70${n}`,
      premiumPaid: 2.5,
      customerEmail: `shopper-${n}@example.com`,
      lineItems: [{ sourceItemId: 'mug', name: 'Stoneware mug', quantity: 2, price: 18, isShippable: true }],
    });
    await putFulfillment(sourceOrderId, 'f-1', trackingNumber, status);
    return sourceOrderId;
  }

  async function putFulfillment(sourceOrderId: string, f: string, trackingNumber: string, status: string) {
    const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/${f}`, {
      method: 'PUT',
      headers: bearer(shop.token),
      json: {
        fulfillmentStatus: status,
        trackingCompany: 'UPS',
        ...(f === 'f-1' ? { sourceItemIds: [{ sourceItemId: 'mug', quantity: 2 }] } : {}),
        trackingNumber: [trackingNumber],
        updatedAt: ago(3 * DAY),
      },
    });
    expect(res.status).toBe(200);
  }

  /** A carrier event as a partner sends it (D54). */
  const event = (
    id: string,
    occurredAt: string,
    status: string,
    description: string,
    location: string,
    subStatus?: string,
  ) => ({
    id,
    occurredAt,
    status,
    description,
    location,
    ...(subStatus ? { subStatus } : {}),
  });

  /** Events of one package through the partner route (D54). */
  async function addEvents(sourceOrderId: string, trackingNumber: string, events: Record<string, unknown>[]) {
    const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/f-1/tracking-events`, {
      method: 'POST',
      headers: bearer(shop.token),
      json: { trackingNumber, carrier: 'UPS', estimatedDeliveryAt: ago(-DAY), events },
    });
    expect(res.status).toBe(200);
  }

  const packageId = async (trackingNumber: string) =>
    (
      await server.db
        .selectFrom('trackingPackages')
        .select('id')
        .where('storeId', '=', shop.owner.store.id)
        .where('trackingNumber', '=', trackingNumber)
        .executeTakeFirstOrThrow()
    ).id;

  /** At a phone's width the page does not scroll sideways: its tables are stacked rows (DataTable). */
  async function expectFitsPhone(page: Page): Promise<void> {
    const before = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    if (before) await page.setViewportSize(before);
  }

  /** The rows of a table, by its region's name, as text. */
  const rowsOf = async (page: Page, region: string) =>
    page.getByRole('region', { name: region }).locator('tbody tr').allInnerTexts();

  it('a claim the rules filed shows its package, the events newest first and the decision that filed it', async () => {
    const number = '1ZLOST0001';
    const sourceOrderId = await shippedOrder(number);
    await addEvents(sourceOrderId, number, [
      event('e1', ago(2 * DAY), 'in_transit', 'Departed facility', 'Louisville, KY'),
      event('e2', ago(DAY), 'lost', 'Package lost by the carrier', 'Memphis, TN', 'lost'),
    ]);
    // The rules as the job after the event would run them (D54); then once more, an hour on.
    const id = await packageId(number);
    const filed = await evaluatePackageNow(server.db, id, new Date(), 'changed');
    expect(filed).toMatchObject({ rule: 'lost', action: 'filed' });
    const claimId = filed!.claimId!;
    const again = await evaluatePackageNow(server.db, id, new Date(Date.now() + HOUR), 'always');
    expect(again).toMatchObject({ claimId, action: 'skipped' });

    const page = await ownerPage();
    await page.goto(claimUrl(claimId));
    expect(await page.locator('main').innerText()).toContain('Lost in transit');
    expect(await page.getByRole('heading', { name: `Package ${number}` }).count()).toBe(1);
    const facts = await page
      .getByRole('region', { name: `Package ${number}` })
      .locator('dl')
      .innerText();
    expect(facts).toMatch(/Status\s+Lost since/);
    expect(facts).toContain('UPS');
    const events = await rowsOf(page, `Tracking events of package ${number}`);
    expect(events).toHaveLength(3);
    expect(events[0]).toMatch(/Lost\s+Package lost by the carrier\s+Memphis, TN/);
    expect(events[1]).toMatch(/In transit\s+Departed facility\s+Louisville, KY/);
    expect(events[2]).toContain('In transit');
    const decisions = await rowsOf(page, `Tracking rules' decisions on package ${number}`);
    expect(decisions).toHaveLength(2);
    expect(decisions[0]).toMatch(/Lost\s+Nothing done\s+.*\s+This claim$/);
    expect(decisions[1]).toMatch(/Lost\s+Claim filed\s+.*\s+Filed this claim$/);
    expect(await page.locator('tr.this-claim').count()).toBe(1);
    await expectAccessible(browser, page, 'claim page with a package the rules filed from');
    await expectFitsPhone(page);
    await screenshots(page, 'dashboard-claim-tracking');
    await page.close();
  });

  it("a shopper's claim on a delivered package shows Delivered and its events; another fulfillment's tracking stays on the order page", async () => {
    const number = '1ZDELIV001';
    const sourceOrderId = await shippedOrder(number);
    await putFulfillment(sourceOrderId, 'f-2', '1ZOTHER001', 'IN_TRANSIT');
    await addEvents(sourceOrderId, number, [
      event('d1', ago(2 * DAY), 'in_transit', 'Arrived at facility', 'Denver, CO'),
      event('d2', ago(DAY + HOUR), 'out_for_delivery', 'Out for delivery', 'Boulder, CO'),
      event('d3', ago(DAY), 'delivered', 'Left at front door', 'Boulder, CO'),
    ]);
    const claimId = await shop.fileId(
      sourceOrderId,
      claimBody({
        fulfillmentIssues: [
          { sourceFulfillmentId: 'f-1', issues: [{ issueType: 'STOLEN', quantity: 1, sourceItemId: 'mug' }] },
        ],
      }),
    );

    const page = await ownerPage();
    await page.goto(claimUrl(claimId));
    const facts = await page
      .getByRole('region', { name: `Package ${number}` })
      .locator('dl')
      .innerText();
    expect(facts).toMatch(/Status\s+Delivered since/);
    expect(facts).not.toMatch(/Delivered\s+Not yet/);
    const events = await rowsOf(page, `Tracking events of package ${number}`);
    expect(events.map((e) => e.split('\t')[1])).toEqual(['Delivered', 'Out for delivery', 'In transit', 'In transit']);
    expect(events[0]).toContain('Left at front door');
    expect(await page.getByText('The tracking rules have decided nothing on this package.').count()).toBe(1);
    // The claim is about f-1 only: f-2 is listed with its number, its tracking is not read here.
    const main = await page.locator('main').innerText();
    expect(main).toContain('1ZOTHER001');
    expect(await page.getByRole('heading', { name: 'Tracking of fulfillment f-2' }).count()).toBe(0);
    await expectAccessible(browser, page, 'claim page with a delivered package');
    await expectFitsPhone(page);
    await screenshots(page, 'dashboard-claim-tracking-delivered');

    // The order page: each package in one line, its status in words and its last scan.
    await page.goto(orderUrl(sourceOrderId));
    const rows = await rowsOf(page, 'Fulfillments');
    expect(rows[0]).toMatch(/1ZDELIV001: Delivered, last scan \d{4}-\d\d-\d\d/);
    expect(rows[1]).toMatch(/1ZOTHER001: In transit, last scan/);
    await expectAccessible(browser, page, 'order page with package summaries');
    await page.close();
  });

  it('a package with no event says so, and a viewer sees the tracking too (D49)', async () => {
    const number = '1ZQUIET001';
    // FULFILLED says nothing of where the package is: no event (D54).
    const sourceOrderId = await shippedOrder(number, 'FULFILLED');
    const claimId = await shop.fileId(
      sourceOrderId,
      claimBody({
        fulfillmentIssues: [
          { sourceFulfillmentId: 'f-1', issues: [{ issueType: 'MISSING_ITEM', quantity: 1, sourceItemId: 'mug' }] },
        ],
      }),
    );
    const viewer = await addMember(server, shop.owner.store.id, 'viewer');
    const { context, page } = await signedInPage(browser, server, viewer);
    await page.goto(claimUrl(claimId));
    const tracking = page.getByRole('region', { name: 'Tracking of fulfillment f-1' });
    const text = await tracking.innerText();
    expect(text).toContain(`Package ${number}`);
    expect(text).toMatch(/Status\s+Unknown/);
    expect(text).toMatch(/Last carrier scan\s+None yet/);
    expect(text).toContain('No tracking event has come in for this package yet.');
    await expectAccessible(browser, page, 'claim page with a quiet package');
    await screenshots(page, 'dashboard-claim-tracking-quiet');
    await context.close();
  });
});

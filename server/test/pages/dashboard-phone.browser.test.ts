import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { addMember, signedInPage } from '../harness/dashboard';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The dashboard on a phone (D50): merchants answer claims from theirs. At 390 px the lists (the
 * claim queue, orders, team, audit log) are stacked rows: the order number and its state on the
 * first line, the rest beneath, the checkbox kept; no word is broken inside, on a phone or a
 * desktop; no page scrolls sideways; and a page of 50 claims is at most 50 rows of 160 px.
 * Every dashboard page is left in .tmp/pages/ at 390 and 1280 px for a person to look at.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard phone browser tests skipped: ${NO_CHROMIUM}`);

const ROW_MAX_PX = 160;

/**
 * The words that a line break cuts inside, in the table cells and in the rest of the page's
 * text. A break after a hyphen is where text breaks in print ("Mary-/Jane"), so the pieces of a
 * hyphenated word count as words. Outside a table a word longer than its whole line (an
 * address, a token) may only be broken; in a cell no word is ever broken, since a column
 * squeezed narrower than its words is what breaks them ("Damag / ed").
 */
function wordsBrokenInside(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const px = (style: CSSStyleDeclaration, ...sides: string[]) =>
      sides.reduce((sum, side) => sum + (Number.parseFloat(style.getPropertyValue(side)) || 0), 0);
    /**
     * The room a text node's words have on a line: its nearest block's content box, less what
     * the inline boxes around it take at their sides (the padding of a `.code` span).
     */
    const lineWidth = (node: Node) => {
      let box = node.parentElement;
      let sides = 0;
      for (; box && getComputedStyle(box).display.startsWith('inline'); box = box.parentElement) {
        const style = getComputedStyle(box);
        sides += px(style, 'padding-left', 'padding-right', 'border-left-width', 'border-right-width');
        sides += px(style, 'margin-left', 'margin-right');
      }
      if (!box) return Number.POSITIVE_INFINITY;
      return box.clientWidth - px(getComputedStyle(box), 'padding-left', 'padding-right') - sides;
    };
    const main = document.querySelector('main') ?? document.body;
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('.visually-hidden, svg, script, style')) continue;
      // Text read out but not shown (a phone's hidden table head) has no lines.
      const head = parent.closest('thead');
      if (head && head.getBoundingClientRect().height <= 2) continue;
      // What a closed <details> holds beyond its summary is not shown: it has no lines.
      if (parent.closest('details:not([open]) > :not(summary)')) continue;
      const inCell = parent.closest('td, th') !== null;
      const text = node.textContent ?? '';
      // A word ends at a space, or after a hyphen the browser may break after: not one after a
      // sign and before a digit (as in "_-8"), where it keeps the two together (a client id
      // whose random part starts "-8" is one word, and breaks where it must, not at the hyphen).
      for (const m of text.matchAll(/(?:[^\s-]|(?<![\p{L}\p{N}])-(?=\p{N}))+-?/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (new Set(rects.map((r) => Math.round(r.top))).size <= 1) continue;
        const width = rects.reduce((sum, r) => sum + r.width, 0);
        if (inCell || width < lineWidth(node) - 1) broken.push(m[0]);
      }
    }
    return broken;
  });
}

/** How far the page reaches past the window sideways (0: it does not scroll sideways). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.skipIf(!CHROMIUM)('the dashboard on a phone (D50)', { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let firstClaim = '';

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    shop = await claimStore(server, 'phone');
    // 50 claims, a page of the queue, with the longer names and addresses shoppers have.
    for (let batch = 0; batch < 50; batch += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const n = 4100 + batch + i;
          await shop.putOrder(`${n}`, {
            sourceOrderNumber: `#${n}`,
            customerName: `Maximiliane Oberhollenzer-${n}`,
            customerEmail: `maximiliane.oberhollenzer.${n}@example-shop.com`,
          });
          const body = claimBody({ email: `maximiliane.oberhollenzer.${n}@example-shop.com` });
          const id = await shop.fileId(`${n}`, body);
          if (n === 4100) firstClaim = id;
        }),
      );
    }
    expect((await shop.post(`/v1/claims/${firstClaim}/transition`, { claimState: 'OPEN' })).status).toBe(200);
    await addMember(server, shop.owner.store.id, 'agent');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const storeUrl = (...rest: string[]) =>
    [`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}`, ...rest].join('/');
  const owner = () => ({ email: shop.owner.user.email, password: shop.owner.password });

  it('the claim queue at 390 px: stacked rows of at most 160 px, order number and state on top, checkbox kept', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(storeUrl('claims?tab=all'));
    const rows = page.locator('table.data tbody tr');
    expect(await rows.count()).toBe(50);
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await wordsBrokenInside(page)).toEqual([]);
    const body = await page.locator('table.data tbody').boundingBox();
    expect(body!.height).toBeLessThanOrEqual(50 * ROW_MAX_PX);
    const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThanOrEqual(ROW_MAX_PX);

    // The first line: the checkbox, the order number and the state, side by side; the claim id beneath.
    const first = rows.first();
    const top = async (selector: string) => (await first.locator(selector).first().boundingBox())!;
    const box = await top('input[type="checkbox"]');
    expect(box.width).toBeGreaterThan(10);
    const order = await first.locator('td.top', { hasText: /^#41\d\d$/ }).boundingBox();
    const state = await top('.state');
    const claimLink = await top('a');
    expect(Math.abs(order!.y - state.y)).toBeLessThan(12);
    expect(claimLink.y).toBeGreaterThan(order!.y + order!.height - 1);
    await context.close();
  });

  it('orders, team and audit at 390 px: stacked, no word broken, nothing sideways', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['orders', 'team', 'audit']) {
      await page.goto(storeUrl(path));
      expect(await page.locator('table.data tbody tr').count(), path).toBeGreaterThan(0);
      expect(await sidewaysOverflow(page), path).toBe(0);
      expect(await wordsBrokenInside(page), path).toEqual([]);
      const display = await page
        .locator('table.data tbody tr')
        .first()
        .evaluate((tr) => getComputedStyle(tr).display);
      expect(display, path).toBe('flex');
    }
    await context.close();
  });

  it('every dashboard page, at 390 and 1280 px: no word broken inside, no page sideways; screenshots', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    const pages: [string, string][] = [
      ['dashboard-home', `${server.baseUrl}/dashboard`],
      ['dashboard-store', storeUrl()],
      ['dashboard-queue', storeUrl('claims')],
      ['dashboard-claim', storeUrl('claims', firstClaim)],
      ['dashboard-orders', storeUrl('orders')],
      ['dashboard-order', storeUrl('orders', '4100')],
      ['dashboard-analytics', storeUrl('analytics')],
      ['dashboard-settings', storeUrl('settings')],
      // The settings page's tracking section (D54) with a source listed in its table.
      ['dashboard-tracking-settings', storeUrl('settings#tracking-sources')],
      ['dashboard-team', storeUrl('team')],
      ['dashboard-audit', storeUrl('audit')],
      ['dashboard-apps', storeUrl('apps')],
    ];
    for (const [name, url] of pages) {
      if (name === 'dashboard-tracking-settings') {
        await page.goto(url);
        await page.getByRole('button', { name: 'Add source' }).click();
        await page.locator('#new-source-url').waitFor();
      }
      const answer = await page.goto(url);
      expect(answer?.status(), name).toBe(200);
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        expect(await sidewaysOverflow(page), `${name} at ${width} px`).toBe(0);
        // The claimed items (with their photos) are stacked rows too: their region never scrolls sideways.
        if (name === 'dashboard-claim')
          expect(
            await page
              .getByRole('region', { name: 'Claimed items' })
              .evaluate((region) => region.scrollWidth - region.clientWidth),
            `claimed items at ${width} px`,
          ).toBe(0);
        expect.soft(await wordsBrokenInside(page), `${name} at ${width} px`).toEqual([]);
      }
      await screenshots(page, name);
    }
    await context.close();
  });
});

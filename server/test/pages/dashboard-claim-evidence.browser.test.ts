import { type TFile, ZClaim, ZClaimConnection, ZFile } from '@protection-service/contract';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectAccessible, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { signedInPage } from '../harness/dashboard';
import { gpsJpeg, gpsPng, pdf, upload } from '../harness/files';
import { dataOf, jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The evidence on the dashboard's claim page (D56, D57), in headless Chromium against a real
 * server: the service's own photos of the items and of the messages as thumbnails at once,
 * loaded from their file links; its PDFs as links; any other address never fetched until the
 * person presses "Show photos"; axe clean; nothing sideways at 390 px.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard claim evidence browser tests skipped: ${NO_CHROMIUM}`);

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Each image of the page's main region with whether the browser decoded it. */
const shownImages = (page: Page) =>
  page
    .locator('main img')
    .evaluateAll((images) =>
      (images as HTMLImageElement[]).map((img) => ({ src: img.src, decoded: img.complete && img.naturalWidth > 0 })),
    );

describe.skipIf(!CHROMIUM)("the claim page's evidence in headless Chromium (D56)", { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    shop = await claimStore(server, 'dash-evidence');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const uploaded = async (bytes: Uint8Array, name: string, type: string): Promise<TFile> => {
    const res = await upload(server, shop.token, bytes, name, type);
    expect(res.status, await res.clone().text()).toBe(201);
    return dataOf(res, ZFile);
  };

  it('shows its own photos at once, PDFs as links, and fetches other addresses only on "Show photos"', async () => {
    const [photo, later, receipt] = await Promise.all([
      uploaded(await gpsJpeg(), 'parcel.jpg', 'image/jpeg'),
      uploaded(await gpsPng(), 'closer.png', 'image/png'),
      uploaded(pdf(), 'receipt.pdf', 'application/pdf'),
    ]);
    const elsewhere = 'https://images.example/lamp.png';
    const inMessage = 'https://images.example/box.png';
    await shop.putOrder('o-evidence', {
      lineItems: [{ sourceItemId: 'li-lamp', name: 'Brass desk lamp', quantity: 2 }],
    });
    const claimId = await shop.fileId(
      'o-evidence',
      claimBody({
        fulfillmentIssues: [
          { issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'li-lamp', images: [photo.url, elsewhere] }] },
        ],
      }),
    );
    const message = await shop.post(`/v1/claims/${claimId}/messages`, {
      message: 'Closer, and the receipt',
      senderType: 'customer',
      medias: [later.url, receipt.url, inMessage],
    });
    expect(message.status).toBe(200);

    const { context, page } = await signedInPage(browser, server, {
      email: shop.owner.user.email,
      password: shop.owner.password,
    });
    const foreign: string[] = [];
    const own: string[] = [];
    await context.route('https://images.example/**', (route) => {
      foreign.push(route.request().url());
      return route.fulfill({ contentType: 'image/png', body: PNG });
    });
    page.on('request', (r) => {
      if (r.url().startsWith(`${server.baseUrl}/files/`)) own.push(r.url());
    });
    try {
      const claimUrl = `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims/${claimId}`;
      const first = await page.goto(claimUrl);
      const csp = first!.headers()['content-security-policy'];
      expect(csp).toContain(`img-src 'self' ${new URL(server.baseUrl).origin};`);
      expect(csp).not.toContain('https:');
      // The two photos as thumbnails, decoded, each a link to itself; the PDF a link.
      await expect
        .poll(() => shownImages(page))
        .toEqual([
          { src: photo.url, decoded: true },
          { src: later.url, decoded: true },
        ]);
      expect(await page.getByRole('link', { name: 'Brass desk lamp, file 1' }).getAttribute('href')).toBe(photo.url);
      expect(await page.getByRole('img', { name: 'Message 1, file 1' }).count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Message 1, file 2 (PDF, downloads)' }).getAttribute('href')).toBe(
        receipt.url,
      );
      expect(own.sort()).toEqual([photo.url, later.url].sort());
      const text = await page.locator('main').innerText();
      expect(text.match(/1 photo elsewhere/g)).toHaveLength(2);
      // Nothing of the other host was asked for.
      expect(foreign).toEqual([]);
      await expectAccessible(browser, page, 'claim page with its evidence');
      await page.setViewportSize({ width: 390, height: 844 });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBe(0);
      await expectAccessible(browser, page, 'claim page with its evidence at 390 px');
      await screenshots(page, 'dashboard-claim-evidence');
      expect(foreign).toEqual([]);

      await page.getByRole('link', { name: 'Show photos' }).click();
      await expect.poll(() => page.url()).toContain('photos=1');
      // Photos load lazily: the message's as it comes into view.
      await page.getByRole('img', { name: 'Message 1, sent by the shopper (1)' }).scrollIntoViewIfNeeded();
      await expect.poll(() => foreign.sort()).toEqual([inMessage, elsewhere].sort());
      expect((await shownImages(page)).map((i) => i.src)).toEqual([photo.url, elsewhere, later.url, inMessage]);
      expect(await page.getByRole('link', { name: 'Show photos' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("shows each claim's risk as a badge, filters the queue by it, and on the claim page each signal in words with its evidence (D57)", async () => {
    const [first, again] = await Promise.all([
      uploaded(await gpsJpeg(), 'vase.jpg', 'image/jpeg'),
      uploaded(await gpsJpeg(), 'vase-again.jpg', 'image/jpeg'),
    ]);
    const ids: string[] = [];
    for (const [n, images] of [[first.url], [again.url], []].entries()) {
      const order = `o-risk-${n}`;
      await shop.putOrder(order, { sourceOrderNumber: `#R${n}`, lineItems: [{ sourceItemId: 'li', quantity: 1 }] });
      ids.push(
        await shop.fileId(
          order,
          claimBody({
            fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'li', images }] }],
          }),
        ),
      );
    }
    const [plain, reusing] = ids as [string, string];
    // The risk as the service computed it from the store's own data when each claim was filed (D57).
    const riskOf = async (id: string) => (await jsonOf(await shop.get(`/v1/claims/${id}`), ZClaim)).risk;
    const reused = await riskOf(reusing);
    // The same picture was sent with the claim before it (and with this page's first claim, the same fixture).
    expect(reused.signals.find((x) => x.code === 'photo_reused')?.relatedClaimIds).toContain(plain);
    expect(reused.level).not.toBe('low');
    const atLevels = async (...levels: string[]) =>
      (
        await jsonOf(
          await shop.get(`/v1/claims?first=50&${levels.map((l) => `risk=${l}`).join('&')}`),
          ZClaimConnection,
        )
      ).edges.map((e) => e.node.id);

    const { context, page } = await signedInPage(browser, server, {
      email: shop.owner.user.email,
      password: shop.owner.password,
    });
    try {
      const queue = `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims`;
      await page.goto(queue);
      const row = (id: string) => page.locator('table.data tbody tr', { has: page.locator(`a:text-is("${id}")`) });
      const words = { low: 'Low risk', medium: 'Medium risk', high: 'High risk' } as const;
      for (const id of ids) expect(await row(id).locator('.risk').innerText()).toBe(words[(await riskOf(id)).level]);
      await expectAccessible(browser, page, 'claim queue with risk badges');
      const listed = () => page.locator('table.data tbody tr td a[href*="/claims/clm_"]').allInnerTexts();
      for (const [label, levels] of [
        ['High', ['high']],
        ['Medium or high', ['medium', 'high']],
        ['Low', ['low']],
      ] as const) {
        await page.getByLabel('Risk').selectOption({ label });
        await page.getByRole('button', { name: 'Apply' }).click();
        await expect.poll(() => listed()).toEqual(await atLevels(...levels));
      }
      expect(await listed()).not.toContain(reusing);

      await page.goto(`${queue}/${reusing}`);
      const risk = page.getByRole('region', { name: 'Risk' });
      const text = await risk.innerText();
      expect(text).toContain(words[reused.level]);
      expect(text).toContain('A photo was also sent with another claim');
      // Each signal's own detail, and each related claim one click away.
      for (const signal of reused.signals) {
        expect(text).toContain(signal.detail);
        for (const id of signal.relatedClaimIds) {
          expect(
            await risk
              .getByRole('link', { name: `Claim ${id}`, exact: true })
              .first()
              .getAttribute('href'),
          ).toBe(`/dashboard/stores/${shop.owner.store.id}/claims/${id}`);
        }
      }
      // The photo beside the other claim's, both from the service's own file links.
      await expect
        .poll(() =>
          risk
            .locator('.side-by-side img')
            .evaluateAll((images) =>
              (images as HTMLImageElement[]).map((img) => [img.alt, img.src, img.complete && img.naturalWidth > 0]),
            ),
        )
        .toEqual(
          expect.arrayContaining([
            ['This claim, 1 of 1', again.url, true],
            [`Claim ${plain}, 1 of 1`, first.url, true],
          ]),
        );
      // Every photo shown beside another decodes (lazy ones once in view).
      for (const img of await risk.locator('.side-by-side img').all()) await img.scrollIntoViewIfNeeded();
      await expect
        .poll(() =>
          risk
            .locator('.side-by-side img')
            .evaluateAll((images) =>
              (images as HTMLImageElement[]).every((img) => img.complete && img.naturalWidth > 0),
            ),
        )
        .toBe(true);
      await expectAccessible(browser, page, 'claim page with its risk');
      for (const url of [page.url(), `${queue}?risk=elevated`]) {
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(url);
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        ).toBe(0);
        await expectAccessible(browser, page, `${url} at 390 px`);
      }
      await page.goto(`${queue}/${reusing}`);
      await screenshots(page, 'dashboard-claim-risk');
    } finally {
      await context.close();
    }
  });
});

import { ZClaim } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MISS_MESSAGE } from '../../src/pages/claim-form/views';
import {
  CHROMIUM,
  expectAccessible,
  expectFormsCarryCsrf,
  launchChromium,
  NO_CHROMIUM,
  screenshots,
} from '../harness/browser';
import { type ClaimStore, claimStore } from '../harness/claims';
import { cameraTags, exifOf, gpsJpeg, gpsPng, html, largeJpeg, pixelBomb, svg, upload } from '../harness/files';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D56's claim form in headless Chromium at a phone's width (390 px): the shopper finds the
 * order with its number and e-mail (and a wrong e-mail, a wrong number and a locked number all
 * answer the same), files a claim with two phone photos carrying a GPS position, lands on the
 * claim's page (D41) and adds a photo later; the stored bytes carry no GPS. The flow works with
 * JavaScript off, and hostile files are refused in words with nothing stored.
 */
if (!CHROMIUM) console.warn(`[pages] claim form browser tests skipped: ${NO_CHROMIUM}`);

const PHONE = { width: 390, height: 844 };
const EMAIL = 'Ann.Shopper@example.com';

describe.skipIf(!CHROMIUM)("the shopper's claim form in headless Chromium (D56)", () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let other: ClaimStore;
  let orderSeq = 0;

  beforeAll(async () => {
    server = await startTestServer();
    shop = await claimStore(server, 'claim-form');
    other = await claimStore(server, 'claim-form-other');
    await server.db
      .updateTable('stores')
      .set({ name: 'Harbor & Pine' })
      .where('id', '=', shop.owner.store.id)
      .execute();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new order of the shop with two lines; answers its number. */
  async function newOrder(): Promise<string> {
    orderSeq += 1;
    const number = `#30${String(orderSeq).padStart(2, '0')}`;
    await shop.putOrder(`o-form-${orderSeq}`, {
      sourceOrderNumber: number,
      customerEmail: 'ann.shopper@example.com',
      lineItems: [
        { sourceItemId: 'li-vase', name: 'Glass vase', quantity: 2, price: 40, isShippable: true },
        { sourceItemId: 'li-mug', name: 'Stoneware mug', quantity: 1, price: 15, isShippable: true },
      ],
    });
    return number;
  }

  /** Every lookup of this address counts (D4); each test starts a fresh count. */
  const freshLimit = () => server.db.deleteFrom('rateLimitCounters').where('key', 'like', 'claim-form:%').execute();
  /** The claim form's lookups counted since `freshLimit`, over every window they fell in. */
  async function lookupsCounted(): Promise<number> {
    const rows = await server.db
      .selectFrom('rateLimitCounters')
      .select('count')
      .where('key', 'like', 'claim-form:%')
      .execute();
    return rows.reduce((sum, r) => sum + Number(r.count), 0);
  }
  /**
   * The claim form's count held at `count` in the latest window it wrote and the two after it:
   * windows are whole minutes, so whenever the clock turns, the next lookup meets that count.
   */
  async function holdCount(count: number): Promise<void> {
    await sql`
      insert into rate_limit_counters (key, window_start, count)
      select k.key, w.start, ${count}::int
      from (select key, max(window_start) as latest from rate_limit_counters where key like 'claim-form:%' group by key) k
      cross join lateral (select k.latest + make_interval(mins => n) as start from generate_series(0, 2) n) w
      on conflict (key, window_start) do update set count = excluded.count
    `.execute(server.db);
  }

  async function phone(javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled, isMobile: true, hasTouch: true });
    return { context, page: await context.newPage() };
  }

  const formUrl = () => `${server.baseUrl}/claims/new?store=${encodeURIComponent(shop.owner.store.domain)}`;

  async function lookUp(page: Page, number: string, email: string): Promise<number> {
    const answer = await page.goto(formUrl());
    expect(answer!.status()).toBe(200);
    await page.getByLabel('Order number').fill(number);
    await page.getByLabel('Email').fill(email);
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Find my order' }).click(),
    ]);
    await page.waitForLoadState();
    return res.status();
  }

  const photo = async (name: string, bytes: Promise<Buffer> | Buffer, mimeType = 'image/jpeg') => ({
    name,
    mimeType,
    buffer: await bytes,
  });

  const filesOf = async (storeId: string) =>
    (await server.db.selectFrom('files').select('id').where('storeId', '=', storeId).execute()).length;
  const claimsOf = async (storeId: string) =>
    (await server.db.selectFrom('claims').select('id').where('storeId', '=', storeId).execute()).length;

  it('finds an order, and answers a wrong e-mail, a wrong number and a locked number alike', async () => {
    await freshLimit();
    const number = await newOrder();
    const { context, page } = await phone();
    await page.goto(formUrl());
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('File a claim with Harbor & Pine');
    await expectAccessible(browser, page, 'claim form lookup');
    await expectFormsCarryCsrf(page);
    await screenshots(page, 'claim-form-lookup');

    const missTexts: string[] = [];
    expect(await lookUp(page, number, 'someone.else@example.com')).toBe(200);
    missTexts.push(await page.locator('main').innerText());
    expect(await lookUp(page, '#9999', EMAIL)).toBe(200);
    missTexts.push(await page.locator('main').innerText());
    expect(missTexts[0]).toContain(MISS_MESSAGE);
    await expectAccessible(browser, page, 'claim form miss');

    // The e-mail in any case finds the order: its lines with what is left to claim (D39).
    expect(await lookUp(page, number, EMAIL.toUpperCase())).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Your order ${number}`);
    expect(await page.locator('main').innerText()).toContain('2 of 2 can be claimed');
    await expectAccessible(browser, page, 'claim form lines');

    // Five misses lock the number for an hour: then even the right e-mail finds nothing.
    await freshLimit();
    const locked = await newOrder();
    for (let i = 0; i < 5; i++) expect(await lookUp(page, locked, `wrong${i}@example.com`)).toBe(200);
    expect(await lookUp(page, locked, EMAIL)).toBe(200);
    const lockedText = await page.locator('main').innerText();
    expect(lockedText).toContain(MISS_MESSAGE);
    // The same answer, whatever was wrong (the typed values aside, which are kept in the fields).
    expect(lockedText).toBe(missTexts[0]);
    expect(missTexts[1]).toBe(missTexts[0]);

    // D4: 10 lookups a minute from one address, every lookup counted, found or not; then 429
    // with Retry-After.
    for (let i = 0; i < 4; i++) expect(await lookUp(page, locked, EMAIL)).toBe(200);
    expect(await lookupsCounted()).toBe(10);
    // Had the clock turned a minute among the ten, the eleventh would rightly pass: the ten
    // are held in one window, so the verdict never depends on when the test ran.
    await holdCount(10);
    const [limited] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      (async () => {
        await page.goto(formUrl());
        await page.getByLabel('Order number').fill(number);
        await page.getByLabel('Email').fill(EMAIL);
        await page.getByRole('button', { name: 'Find my order' }).click();
      })(),
    ]);
    expect(limited.status()).toBe(429);
    expect(Number(limited.headers()['retry-after'])).toBeGreaterThan(0);
    await context.close();
  });

  /** Fills the first line as damaged and chooses a resolution. */
  async function describeDamage(page: Page, quantity = '1') {
    await page.getByLabel('This item is part of my claim').first().check();
    await page.getByLabel('Quantity').first().fill(quantity);
    await page.getByLabel('What happened').first().selectOption('DAMAGED');
    await page.getByLabel('Details').first().fill('The vase arrived in pieces.');
    await page.getByLabel('A replacement sent to me').check();
  }

  async function storedTags(url: string): Promise<string[]> {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const exif = ((await exifOf(bytes).catch(() => undefined)) ?? {}) as Record<string, unknown>;
    expect(exif.latitude).toBeUndefined();
    return cameraTags(bytes);
  }

  it('files a claim with two photos uploaded as chosen, lands on its page and adds a photo later; no GPS is stored', async () => {
    await freshLimit();
    const number = await newOrder();
    const { context, page } = await phone();
    await lookUp(page, number, EMAIL);
    await describeDamage(page);
    await page
      .getByLabel('Photos')
      .first()
      .setInputFiles([await photo('vase-1.jpg', gpsJpeg(640, 480)), await photo('vase-2.jpg', gpsJpeg(480, 640))]);
    await expect.poll(() => page.locator('#uploads-0 li[data-uploaded="true"]').count(), { timeout: 20_000 }).toBe(2);
    expect(await page.locator('#uploads-0 progress').count()).toBe(2);
    await expectAccessible(browser, page, 'claim form with photos');
    await screenshots(page, 'claim-form-lines');
    await Promise.all([page.waitForURL(/\/claims\/view\//), page.getByRole('button', { name: 'File claim' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your claim with Harbor & Pine');
    await expectAccessible(browser, page, 'claim page after filing');

    // The one claim statement filed it: EXTERNAL, from the shopper, its photos the service's files.
    const claimRow = await server.db
      .selectFrom('claims')
      .select(['id', 'claimFiledFrom', 'externalSource'])
      .where('storeId', '=', shop.owner.store.id)
      .orderBy('createdAt', 'desc')
      .executeTakeFirstOrThrow();
    expect(claimRow).toMatchObject({ claimFiledFrom: 'EXTERNAL', externalSource: 'shopper' });
    const claim = await jsonOf(await shop.get(`/v1/claims/${claimRow.id}`), ZClaim);
    const images = claim.claimItems.flatMap((i) => i.images);
    expect(images).toHaveLength(2);
    for (const url of images) expect(await storedTags(url)).toEqual([]);

    // "Add photos" later: each photo a message with its media, from the shopper.
    await page.getByLabel('Photos', { exact: true }).setInputFiles([await photo('later.jpg', gpsJpeg())]);
    await Promise.all([page.waitForURL(/#messages-title$/), page.getByRole('button', { name: 'Add photos' }).click()]);
    const messages = await server.db
      .selectFrom('claimMessages')
      .select(['senderType', 'medias'])
      .where('claimId', '=', claimRow.id)
      .execute();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.senderType).toBe('customer');
    expect(messages[0]!.medias).toHaveLength(1);
    expect(await storedTags(messages[0]!.medias[0]!)).toEqual([]);
    expect(await page.locator('ol.messages img').count()).toBe(1);
    await expectAccessible(browser, page, 'claim page with a photo');
    await context.close();
  });

  it('works with JavaScript off, photos going with the form, and asks for a photo where the store requires one', async () => {
    await freshLimit();
    const number = await newOrder();
    const { context, page } = await phone(false);
    await lookUp(page, number, EMAIL);
    await describeDamage(page, '2');
    const filesBefore = await filesOf(shop.owner.store.id);
    // Damaged needs a photo (photosRequiredFor's default).
    await page.getByRole('button', { name: 'File claim' }).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').innerText()).toContain('add at least one photo');
    expect(await page.getByLabel('Details').first().inputValue()).toBe('The vase arrived in pieces.');
    await expectAccessible(browser, page, 'claim form refusal');
    await page
      .getByLabel('Photos')
      .first()
      .setInputFiles([await photo('a.jpg', gpsJpeg()), await photo('b.png', gpsPng(), 'image/png')]);
    await Promise.all([page.waitForURL(/\/claims\/view\//), page.getByRole('button', { name: 'File claim' }).click()]);
    expect(await filesOf(shop.owner.store.id)).toBe(filesBefore + 2);
    await page.getByLabel('Photos', { exact: true }).setInputFiles([await photo('c.jpg', gpsJpeg())]);
    await Promise.all([page.waitForURL(/#messages-title$/), page.getByRole('button', { name: 'Add photos' }).click()]);
    expect(await page.locator('ol.messages img').count()).toBe(1);
    await context.close();
  });

  it('refuses hostile files in words and stores nothing, and files a PNG named .jpg as the PNG it is', async () => {
    await freshLimit();
    const number = await newOrder();
    const { context, page } = await phone(false);
    await lookUp(page, number, EMAIL);
    const truncated = (await gpsJpeg(200, 200)).subarray(0, 400);
    const hostile = [
      ['drawing.svg', svg(), 'image/svg+xml', 415, 'is not a photo we accept'],
      ['page.png', html(), 'image/png', 415, 'is not a photo we accept'],
      ['bomb.png', await pixelBomb(), 'image/png', 422, 'could not be read as a photo'],
      ['cut.jpg', truncated, 'image/jpeg', 422, 'could not be read as a photo'],
      ['huge.jpg', await largeJpeg(11 * 1024 * 1024), 'image/jpeg', 413, 'is larger than 10 MB'],
    ] as const;
    const before = { files: await filesOf(shop.owner.store.id), claims: await claimsOf(shop.owner.store.id) };
    for (const [name, bytes, mimeType, status, words] of hostile) {
      await describeDamage(page);
      await page
        .getByLabel('Photos')
        .first()
        .setInputFiles([await photo(name, bytes, mimeType)]);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'File claim' }).click(),
      ]);
      await page.waitForLoadState();
      expect(res.status(), name).toBe(status);
      expect(await page.getByRole('alert').innerText(), name).toContain(`"${name}" ${words}`);
    }
    expect(await filesOf(shop.owner.store.id)).toBe(before.files);
    expect(await claimsOf(shop.owner.store.id)).toBe(before.claims);
    await expectAccessible(browser, page, 'claim form hostile file');

    await describeDamage(page);
    await page
      .getByLabel('Photos')
      .first()
      .setInputFiles([await photo('really-a-png.jpg', gpsPng())]);
    await Promise.all([page.waitForURL(/\/claims\/view\//), page.getByRole('button', { name: 'File claim' }).click()]);
    const stored = await server.db
      .selectFrom('files')
      .select('type')
      .where('storeId', '=', shop.owner.store.id)
      .orderBy('createdAt', 'desc')
      .executeTakeFirstOrThrow();
    expect(stored.type).toBe('image/png');
    await context.close();
  });

  it("refuses another store's photo and a photo attached to another claim, naming the problem", async () => {
    await freshLimit();
    const foreign = await upload(server, other.token, await gpsJpeg());
    expect(foreign.status).toBe(201);
    const foreignUrl = (await jsonOf(foreign, z.object({ data: z.object({ url: z.string() }) }))).data.url;
    const attached = await server.db
      .selectFrom('files')
      .select(['id', 'claimId'])
      .where('storeId', '=', shop.owner.store.id)
      .where('claimId', 'is not', null)
      .executeTakeFirstOrThrow();
    const claim = await jsonOf(await shop.get(`/v1/claims/${attached.claimId}`), ZClaim);
    const attachedUrl = claim.claimItems.flatMap((i) => i.images).find((u) => u.includes(attached.id))!;
    const number = await newOrder();
    const { context, page } = await phone();
    await lookUp(page, number, EMAIL);
    const claimsBefore = await claimsOf(shop.owner.store.id);
    for (const url of [foreignUrl, attachedUrl]) {
      await describeDamage(page);
      await page.evaluate((u) => {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = 'photoUrl.0';
        input.value = u;
        document.getElementById('uploads-0')!.append(input);
      }, url);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'File claim' }).click(),
      ]);
      await page.waitForLoadState();
      expect(res.status()).toBe(422);
      expect(await page.getByRole('alert').innerText()).toContain('belongs to another store or claim');
      // The refused link is not carried on.
      await page.evaluate(() => {
        for (const el of document.querySelectorAll('input[name^="photoUrl."]')) el.remove();
      });
    }
    expect(await claimsOf(shop.owner.store.id)).toBe(claimsBefore);
    await context.close();
  });
});

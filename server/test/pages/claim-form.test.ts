import { randomBytes } from 'node:crypto';
import { ZError } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { newId } from '../../src/lib/ids';
import { MISS_MESSAGE } from '../../src/pages/claim-form/views';
import { gpsJpeg, html } from '../harness/files';
import { createOwner, withinOneRateWindow } from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import { type ServiceProcess, startApiProcesses } from '../harness/processes';
import { cloneDatabase } from '../harness/server';

/**
 * D56's claim form over plain HTTP, on two server processes sharing one database: the pages
 * carry D41's headers (the one script only on step two), a form without the session's CSRF
 * token does nothing, the photo upload answers JSON in the D2 shape, and the lookup limits
 * hold across processes: 5 misses on either lock the number on both, and 10 lookups a minute
 * from one address count on both (D4).
 */
describe("the shopper's claim form across two processes (D4, D56)", () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let processes: ServiceProcess[] = [];
  let urls: string[] = [];
  const secret = randomBytes(32);
  let domain: string;
  let storeId: string;

  beforeAll(async () => {
    database = await cloneDatabase();
    ({ processes, urls } = await startApiProcesses(2, {
      databaseUrl: database.url,
      secretKey: secret,
      env: { PUBLIC_BASE_URL: 'http://api.test.local', WEBHOOK_WORKERS: '0' },
    }));
    const owner = await createOwner(database.db, `form-${randomBytes(3).toString('hex')}`);
    ({ domain } = owner.store);
    storeId = owner.store.id;
    for (const number of ['#4001', '#4002']) {
      const orderId = newId('ord');
      await sql`
        insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at,
          platform_id, total, customer_email, line_items_known)
        values (${orderId}, ${storeId}, ${`o-${number}`}, ${number}, 'USD', now(), 'api', 10, 'bo@example.com', true)
      `.execute(database.db);
      await database.db
        .insertInto('orderLineItems')
        .values({ orderId, sourceItemId: 'li-1', position: 0, name: 'Lamp', quantity: 1, price: 10 } as never)
        .execute();
    }
  }, 240_000);
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await database?.drop();
  });

  const formPath = () => `/claims/new?store=${encodeURIComponent(domain)}`;
  const hidden = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page)?.[1] ?? '';

  /** A browser's session: its cookie and CSRF token, from the lookup page of `url`. */
  async function session(url: string) {
    const res = await fetch(url + formPath());
    expect(res.status).toBe(200);
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: hidden(await res.text(), 'csrf') };
  }

  async function lookUp(url: string, s: { cookie: string; csrf: string }, orderNumber: string, email: string) {
    const res = await fetch(url + formPath(), {
      method: 'POST',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: s.csrf, orderNumber, email }),
    });
    return { res, page: await res.text() };
  }

  const clearLimit = () => database.db.deleteFrom('rateLimitCounters').where('key', 'like', 'claim-form:%').execute();

  it("answers with D41's headers, the script allowed on step two only, and refuses a form without the CSRF token", async () => {
    await clearLimit();
    const s = await session(urls[0]!);
    const lookupPage = await fetch(urls[0]! + formPath());
    const csp = lookupPage.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(lookupPage.headers.get('x-frame-options')).toBe('DENY');
    expect(lookupPage.headers.get('cache-control')).toBe('no-store');
    expect(lookupPage.headers.get('referrer-policy')).toBe('no-referrer');

    const forged = await lookUp(urls[0]!, { ...s, csrf: 'forged' }, '#4001', 'bo@example.com');
    expect(forged.res.status).toBe(403);
    const found = await lookUp(urls[1]!, s, '4001', 'BO@example.com');
    expect(found.res.status).toBe(200);
    expect(found.res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(found.page).toContain('Lamp');
    expect((await fetch(`${urls[0]}/claims/new?store=nowhere.example.com`)).status).toBe(404);

    // The upload answers JSON: 201 with the file's link, refusals in the D2 shape.
    const upload = async (bytes: Uint8Array, fields: Record<string, string>) => {
      const body = new FormData();
      for (const [k, v] of Object.entries(fields)) body.set(k, v);
      body.set('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), 'x.jpg');
      return fetch(`${urls[1]}/claims/new/photos?store=${encodeURIComponent(domain)}`, {
        method: 'POST',
        headers: { cookie: s.cookie },
        body,
      });
    };
    const pass = hidden(found.page, 'pass');
    const ok = await upload(await gpsJpeg(), { csrf: s.csrf, pass });
    expect(ok.status).toBe(201);
    const { data } = await jsonOf(
      ok,
      z.object({ data: z.object({ id: z.string(), url: z.string(), type: z.string() }) }),
    );
    expect(data).toMatchObject({ type: 'image/jpeg' });
    expect(data.url).toMatch(/^http:\/\/api\.test\.local\/files\/file_/);
    const refused = await upload(html(), { csrf: s.csrf, pass });
    expect(refused.status).toBe(415);
    expect((await jsonOf(refused, ZError)).message).toContain('is not a photo we accept');
    const noPass = await upload(await gpsJpeg(), { csrf: s.csrf, pass: `${pass.slice(0, -2)}xx` });
    expect(noPass.status).toBe(403);
    expect((await jsonOf(noPass, ZError)).statusCode).toBe(403);
    const stored = await database.db.selectFrom('files').select('id').where('storeId', '=', storeId).execute();
    expect(stored.map((f) => f.id)).toEqual([data.id]);
  });

  it('locks a number after 5 misses spread over both processes, and counts lookups of one address on both', async () => {
    await withinOneRateWindow(30_000);
    await clearLimit();
    const s = await session(urls[0]!);
    for (let i = 0; i < 5; i++) {
      const miss = await lookUp(urls[i % 2]!, s, '#4002', `nobody${i}@example.com`);
      expect(miss.res.status).toBe(200);
      expect(miss.page).toContain(MISS_MESSAGE);
    }
    for (const url of urls) expect((await lookUp(url, s, '#4002', 'bo@example.com')).page).toContain(MISS_MESSAGE);
    // Another number of the store is not locked.
    expect((await lookUp(urls[1]!, s, '#4001', 'bo@example.com')).page).not.toContain(MISS_MESSAGE);
    // 8 lookups so far; two more are admitted, the next is refused on either process.
    for (const url of urls) expect((await lookUp(url, s, '#4001', 'bo@example.com')).res.status).toBe(200);
    for (const url of urls) {
      const limited = await lookUp(url, s, '#4001', 'bo@example.com');
      expect(limited.res.status).toBe(429);
      expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.page).toContain('Too many attempts');
    }
  });
});

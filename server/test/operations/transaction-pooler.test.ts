import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRevocation } from '../../src/domain/auth/revocations';
import { claimBody, orderBody } from '../harness/claims';
import { installedAppWithToken } from '../harness/fixtures';
import { type PgBouncer, startPgBouncer } from '../harness/pgbouncer';
import { type ServiceProcess, startApiProcesses } from '../harness/processes';
import { cloneDatabase } from '../harness/server';
import { type Receiver, startDeliveryProcess, startReceiver } from '../harness/webhooks';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * D48: the service at DATABASE_POOLER=transaction behind Debian's PgBouncer in transaction
 * mode (a pool of 5 server connections shared by every process): four API processes and a
 * `pnpm worker` serve mixed load with no error and deliver every webhook; concurrent claims on
 * one order line file exactly its claimable quantity (D39); a revocation and a pricing change
 * reach every API process within a second over their direct LISTEN connections; and a
 * restart of the pooler under load behaves as a database restart (D46).
 */
describe('behind PgBouncer in transaction mode (D48)', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let bouncer: PgBouncer;
  let receiver: Receiver;
  let processes: ServiceProcess[] = [];
  let urls: string[] = [];
  const secret = randomBytes(32);
  const publicBaseUrl = 'http://api.test.local';
  let token: string;
  let jti: string;
  let storeId: string;

  beforeAll(async () => {
    database = await cloneDatabase();
    bouncer = await startPgBouncer(database.url, { poolSize: 5 });
    receiver = await startReceiver();
    const env = {
      PUBLIC_BASE_URL: publicBaseUrl,
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: database.url,
      // Every test's requests on one token within a minute: the D4 limit is not what is tested.
      RATE_LIMIT_TOKEN: '100000',
    };
    ({ processes, urls } = await startApiProcesses(4, {
      databaseUrl: bouncer.url(database.url),
      secretKey: secret,
      env: { ...env, WEBHOOK_WORKERS: '0' },
    }));
    processes.push(await startDeliveryProcess({ databaseUrl: bouncer.url(database.url), secretKey: secret, env }));
    const installed = await installedAppWithToken(
      database.db,
      secret,
      publicBaseUrl,
      'pooled',
      [
        'order:update',
        'order:read',
        'claim:manage',
        'claim:update',
        'claim:read',
        'store:read',
        'pricing:shipping-insurance:update',
      ],
      // Public: the pricing scopes are admin-gated, never a private app's (D9).
      { webhookUrl: `${receiver.url}/hooks`, webhookTopics: ['claim/created'], distribution: 'public' },
    );
    ({ token, jti } = installed);
    storeId = installed.store.id;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await receiver?.close();
    await bouncer?.stop();
    await database?.drop();
  });

  const call = async (url: string, path: string, init: { method?: string; json?: unknown; key?: string } = {}) => {
    const res = await fetch(url + path, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.key ? { 'idempotency-key': init.key } : {}),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const body = await res.text();
    return { status: res.status, body, headers: res.headers };
  };

  it('serves orders, claims, idempotent replays, quotes and lists with no error, and delivers every webhook', async () => {
    const statuses: string[] = [];
    const note = (what: string, status: number) => statuses.push(`${what} ${status}`);
    const claims = new Set<string>();
    const shopper = async (n: number) => {
      const a = urls[n % urls.length]!;
      const b = urls[(n + 1) % urls.length]!;
      const order = `pooled-${n}`;
      note('order', (await call(a, `/v1/orders/${order}`, { method: 'PUT', json: orderBody() })).status);
      // The same write again through the other process: an update, not an error.
      note('order again', (await call(b, `/v1/orders/${order}`, { method: 'PUT', json: orderBody() })).status);
      const filed = await call(b, `/v1/claims/${order}`, { method: 'POST', json: claimBody(), key: `k-${n}` });
      note('claim', filed.status);
      const replay = await call(a, `/v1/claims/${order}`, { method: 'POST', json: claimBody(), key: `k-${n}` });
      note('replay', replay.status);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('location')).toBe(filed.headers.get('location'));
      claims.add(filed.headers.get('location') ?? '');
      note('order claims', (await call(a, `/v1/orders/${order}/claims`)).status);
      note('claims', (await call(b, '/v1/claims?first=5')).status);
      note('quote', (await call(a, `/v1/quote/insurance?storeId=${storeId}&subtotal=${50 + n}`)).status);
    };
    const shoppers = 40;
    // Eight at a time through five server connections.
    for (let n = 0; n < shoppers; n += 8)
      await Promise.all(Array.from({ length: Math.min(8, shoppers - n) }, (_, i) => shopper(n + i)));
    const failed = statuses.filter((s) => !/ 2\d\d$/.test(s));
    expect(failed).toEqual([]);
    expect(statuses).toHaveLength(shoppers * 7);
    expect(claims.size).toBe(shoppers);
    await expect.poll(() => receiver.at('/hooks').length, { timeout: 20_000, interval: 100 }).toBe(shoppers);
    for (const p of processes) expect(p.output()).not.toMatch(/"level":50/);
  }, 120_000);

  it('files exactly the claimable quantity of concurrent claims on one line, across the four (D39)', async () => {
    const order = 'pooled-last-units';
    const put = await call(urls[0]!, `/v1/orders/${order}`, {
      method: 'PUT',
      json: orderBody({ lineItems: [{ sourceItemId: 'mug', quantity: 3 }] }),
    });
    expect(put.status).toBe(200);
    const one = claimBody({
      fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', sourceItemId: 'mug', quantity: 1 }] }],
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(urls[i % urls.length]!, `/v1/claims/${order}`, { method: 'POST', json: one }),
      ),
    );
    // As the D39 tests expect directly: the claims that fit are filed, the others refused as over-asking.
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const refused of answers.filter((a) => a.status === 400)) {
      expect(refused.body).toContain('exceeds what is left to claim of item mug');
    }
    const filed = await sql<{ quantity: number }>`
      select coalesce(sum(ci.quantity), 0)::int as quantity from claims c join claim_items ci on ci.claim_id = c.id
      where c.source_order_id = ${order} and c.store_id = ${storeId}
    `.execute(database.db);
    expect(filed.rows[0]!.quantity).toBe(3);
  }, 30_000);

  it('a pricing change through one process reaches the cached shopper read of every process within a second (D29)', async () => {
    const quote = async (url: string) => {
      const res = await fetch(`${url}/v1/quote/insurance?storeId=${storeId}&subtotal=50`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { automaticallyAddToCart: boolean }).automaticallyAddToCart;
    };
    // Each process caches the read.
    for (const url of urls) expect(await quote(url)).toBe(false);
    const shipping = await database.db
      .selectFrom('pricingRuleSets')
      .select('id')
      .where('storeId', '=', storeId)
      .where('type', '=', 'SHIPPING')
      .executeTakeFirstOrThrow();
    const changedAt = Date.now();
    const put = await call(urls[0]!, `/v2/pricing/rules/${shipping.id}`, {
      method: 'PUT',
      json: { automaticallyAddToCart: true },
    });
    expect(put.status).toBe(200);
    const shownAfter: number[] = [];
    for (const url of urls) {
      while (!(await quote(url))) {
        if (Date.now() - changedAt > 5_000) throw new Error(`${url} still answers the old pricing`);
        await pause(20);
      }
      shownAfter.push(Date.now() - changedAt);
    }
    process.stdout.write(`pricing change shown by the four after ${shownAfter.join(', ')} ms\n`);
    expect(Math.max(...shownAfter)).toBeLessThan(1000);
  }, 20_000);

  it('rides out a pooler restart under load: 2xx or 503 with Retry-After, 2xx again within 2 s, nothing acknowledged lost (D46)', async () => {
    let writing = true;
    const answers: { status: number; retryAfter: string | null; at: number }[] = [];
    const acknowledged: string[] = [];
    const writer = async (w: number) => {
      for (let i = 0; writing; i++) {
        const order = `restart-${w}-${i}`;
        const at = Date.now();
        const res = await call(urls[w % urls.length]!, `/v1/orders/${order}`, {
          method: 'PUT',
          json: orderBody(),
        }).catch(() => ({ status: 0, headers: new Headers() }));
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at });
        if (res.status === 200) acknowledged.push(order);
        await pause(10);
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    await pause(1000);
    // PgBouncer stopped at once (every server and client connection cut), down half a second.
    await bouncer.restart(500);
    const backAt = Date.now();
    await pause(3000);
    writing = false;
    await Promise.all(writers);
    const unexpected = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.retryAfter === '2'));
    expect(unexpected).toEqual([]);
    const late = answers.filter((a) => a.at >= backAt + 2000);
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter((a) => a.status !== 200)).toEqual([]);
    const stored = await database.db
      .selectFrom('orders')
      .select('sourceOrderId')
      .where('storeId', '=', storeId)
      .where('sourceOrderId', 'like', 'restart-%')
      .execute();
    const kept = new Set(stored.map((o) => o.sourceOrderId));
    expect(acknowledged.filter((o) => !kept.has(o))).toEqual([]);
    process.stdout.write(
      `pooler restart: ${answers.length} writes, ${acknowledged.length} acknowledged, ` +
        `${answers.filter((a) => a.status === 503).length} answered 503\n`,
    );
  }, 30_000);

  it('a revocation reaches every API process within a second', async () => {
    const settings = (url: string) => call(url, '/v2/settings');
    for (const url of urls) expect((await settings(url)).status).toBe(200);
    const revokedAt = Date.now();
    await recordRevocation(database.db, 'token', jti, new Date(Date.now() + 3600_000));
    const refusedAfter: number[] = [];
    for (const url of urls) {
      while ((await settings(url)).status !== 401) {
        if (Date.now() - revokedAt > 5_000) throw new Error(`${url} still accepts the revoked token`);
        await new Promise((r) => setTimeout(r, 20));
      }
      refusedAfter.push(Date.now() - revokedAt);
    }
    expect(Math.max(...refusedAfter)).toBeLessThan(1000);
  }, 20_000);
});

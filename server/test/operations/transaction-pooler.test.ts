import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRevocation } from '../../src/domain/auth/revocations';
import { freePort } from '../../src/free-port';
import { claimBody, orderBody } from '../harness/claims';
import { installedAppWithToken } from '../harness/fixtures';
import { type PgBouncer, startPgBouncer } from '../harness/pgbouncer';
import { type ServiceProcess, startServiceProcess } from '../harness/processes';
import { cloneDatabase } from '../harness/server';
import { type Receiver, startDeliveryProcess, startReceiver } from '../harness/webhooks';

/**
 * D48: the service at DATABASE_POOLER=transaction behind Debian's PgBouncer in transaction
 * mode (a pool of 5 server connections shared by every process): two API processes and a
 * `pnpm worker` serve mixed load with no error and deliver every webhook, and a revocation
 * reaches both API processes within a second over their direct LISTEN connections.
 */
describe('behind PgBouncer in transaction mode (D48)', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let bouncer: PgBouncer;
  let receiver: Receiver;
  const processes: ServiceProcess[] = [];
  const urls: string[] = [];
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
    };
    const ports = [await freePort(), await freePort()];
    // One at a time: starting together on a small machine, each could take past its minute.
    for (const port of ports)
      processes.push(
        await startServiceProcess({
          entry: 'main',
          databaseUrl: bouncer.url(database.url),
          secretKey: secret,
          port,
          env: { ...env, WEBHOOK_WORKERS: '0' },
        }),
      );
    processes.push(await startDeliveryProcess({ databaseUrl: bouncer.url(database.url), secretKey: secret, env }));
    urls.push(...ports.map((port) => `http://127.0.0.1:${port}`));
    const installed = await installedAppWithToken(
      database.db,
      secret,
      publicBaseUrl,
      'pooled',
      ['order:update', 'order:read', 'claim:manage', 'claim:update', 'claim:read', 'store:read'],
      { webhookUrl: `${receiver.url}/hooks`, webhookTopics: ['claim/created'] },
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
      const a = urls[n % 2]!;
      const b = urls[(n + 1) % 2]!;
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

  it('a revocation reaches both API processes within a second', async () => {
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

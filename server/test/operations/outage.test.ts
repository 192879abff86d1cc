import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db, POOL_WAIT_MS } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { freePort } from '../../src/free-port';
import { withDatabase } from '../harness/database-url';
import { installedAppWithToken } from '../harness/fixtures';
import { type Answer, writeOrders } from '../harness/load';
import { type PrivatePostgres, startPrivatePostgres } from '../harness/private-postgres';
import { type ServiceProcess, startServiceProcess } from '../harness/processes';
import { type Receiver, startReceiver } from '../harness/webhooks';

/** Concurrent writers during each restart (20 for a heavier run: OUTAGE_WRITERS=20). */
const WRITERS = Number(process.env.OUTAGE_WRITERS ?? 4);
/** How long PostgreSQL stays down. */
const OUTAGE_MS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ok = (a: Answer) => typeof a.status === 'number' && a.status < 300;

/**
 * D46, by pulling the plug: a PostgreSQL of this test's own is stopped (`-m fast`) or crashed
 * (`-m immediate`) while clients write new protected orders to `pnpm start` for an app
 * subscribed to their webhooks, and started again 1.5 s later. The processes stay the same,
 * the outage is answered 503 with Retry-After (never a reset, a hang or a 500), what needs no
 * database keeps answering, writes succeed again within 2 s of the database's return, every
 * acknowledged write is there and every one of their events is delivered.
 */
describe('a PostgreSQL restart under load', () => {
  const secretKey = randomBytes(32);
  let pg: PrivatePostgres;
  let databaseUrl: string;
  let db: Db;
  let receiver: Receiver;
  let port: number;
  let url: string;
  let token: string;
  let storeId: string;
  let storeDomain: string;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    pg = await startPrivatePostgres({ crashSafeCommits: true });
    const admin = createDb(pg.url, { max: 1 });
    await sql`create database protection`.execute(admin);
    await admin.destroy();
    databaseUrl = withDatabase(pg.url, 'protection');
    db = createDb(databaseUrl, { max: 2 });
    await migrateToLatest(db);
    receiver = await startReceiver();
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const installed = await installedAppWithToken(db, secretKey, url, 'outage', ['order:update'], {
      webhookUrl: `${receiver.url}/outage`,
      webhookTopics: ['protection/added'],
    });
    token = installed.token;
    storeId = installed.store.id;
    storeDomain = installed.store.domain;
  }, 120_000);

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await db?.destroy();
    await receiver?.close();
    await pg?.stop();
  });

  const start = async (entry: 'main' | 'worker', env: NodeJS.ProcessEnv = {}) => {
    const p = await startServiceProcess({
      entry,
      databaseUrl,
      secretKey,
      port: entry === 'main' ? port : undefined,
      env: {
        PUBLIC_BASE_URL: url,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_WORKERS: '4',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
        // Many writers on one token: the D4 limit is not what this test is about.
        RATE_LIMIT_TOKEN: '1000000',
        ...env,
      },
    });
    processes.push(p);
    return p;
  };

  /** Writes under load, takes PostgreSQL down (`mode`) for OUTAGE_MS, and watches. */
  const restartUnderLoad = async (mode: 'fast' | 'immediate', watched: ServiceProcess[]) => {
    const load = writeOrders({ url, token, writers: WRITERS, prefix: mode });
    await sleep(800);
    const publicRead = `${url}/v1/quote/insurance?store_url=${storeDomain}`;
    // Read once, so that it is answered from memory through the outage.
    expect((await fetch(publicRead)).status).toBe(200);
    const probes = {
      readyz: [] as number[],
      healthz: [] as number[],
      publicRead: [] as number[],
      docs: [] as number[],
    };
    const status = (path: string) =>
      fetch(path.startsWith('http') ? path : `${url}${path}`).then(
        (r) => r.status,
        () => 0,
      );
    const down = Date.now();
    await pg.kill(mode);
    while (Date.now() - down < OUTAGE_MS) {
      const [r, h, p, d] = await Promise.all([
        status('/readyz'),
        status('/healthz'),
        status(publicRead),
        status('/openapi.json'),
      ]);
      probes.readyz.push(r);
      probes.healthz.push(h);
      probes.publicRead.push(p);
      probes.docs.push(d);
      await sleep(100);
    }
    await pg.start();
    const up = Date.now();
    await expect
      .poll(() => load.answers.some((a) => a.at >= up && ok(a)), { timeout: 10_000, interval: 20 })
      .toBe(true);
    const firstOk = Math.min(...load.answers.filter((a) => a.at >= up && ok(a)).map((a) => a.at + a.ms));
    await sleep(300);
    await load.stop();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const outage = load.answers.filter((a) => a.at + a.ms >= down && a.at < up);
    const byStatus: Record<string, number> = {};
    for (const a of outage) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    const report = {
      mode,
      writers: WRITERS,
      outageAnswersByStatus: byStatus,
      slowestAnswerMs: Math.max(...load.answers.map((a) => a.ms)),
      msFromDatabaseBackToFirst2xx: firstOk - up,
      acknowledged: load.acknowledged.size,
      servingPids: watched.map((p) => p.servingPids()),
    };
    process.stdout.write(`[outage] ${JSON.stringify(report)}\n`);
    return { load, probes, report, outage };
  };

  /** Every acknowledged write is in the database, and its event reached the receiver. */
  const nothingLost = async (acknowledged: Set<string>) => {
    const rows = await db
      .selectFrom('orders')
      .select(['sourceOrderId', 'premiumPaid'])
      .where('storeId', '=', storeId)
      .where('sourceOrderId', 'in', [...acknowledged])
      .execute();
    expect(rows.length).toBe(acknowledged.size);
    expect(rows.every((r) => r.premiumPaid === 1.5)).toBe(true);
    const delivered = () =>
      new Set(
        receiver
          .at('/outage')
          .map((r) => (JSON.parse(r.raw) as { body: { sourceOrderId: string } }).body.sourceOrderId),
      );
    await expect
      .poll(() => [...acknowledged].filter((id) => !delivered().has(id)), { timeout: 30_000, interval: 250 })
      .toEqual([]);
    // Events of writes answered 503 that committed all the same are delivered too; and since
    // the receiver took every attempt, one attempt each: what our own database cut short was
    // not counted against it.
    const counted = () =>
      db
        .selectFrom('webhookDeliveries')
        .select(['status', 'attemptCount'])
        .distinct()
        .execute()
        .then((rows) => rows.map((r) => `${r.status} after ${r.attemptCount}`));
    await expect.poll(counted, { timeout: 30_000, interval: 250 }).toEqual(['delivered after 1']);
  };

  const expectOutageAnswered = ({ load, probes, outage }: Awaited<ReturnType<typeof restartUnderLoad>>) => {
    // Never a reset, a hang or a 500: 2xx, or 503 with Retry-After.
    expect(new Set(load.answers.map((a) => (ok(a) ? 'ok' : a.status)))).toEqual(new Set(['ok', 503]));
    expect(outage.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(load.answers.filter((a) => a.status === 503).every((a) => a.retryAfter === '2')).toBe(true);
    expect(Math.max(...load.answers.map((a) => a.ms))).toBeLessThan(POOL_WAIT_MS + 1000);
    expect(probes.readyz).toContain(503);
    expect(new Set(probes.healthz)).toEqual(new Set([200]));
    expect(new Set(probes.publicRead)).toEqual(new Set([200]));
    expect(new Set(probes.docs)).toEqual(new Set([200]));
  };

  it('fast shutdown: pnpm start (delivering too) keeps its process, answers 503, recovers, loses nothing', async () => {
    const api = await start('main');
    const result = await restartUnderLoad('fast', [api]);
    expectOutageAnswered(result);
    expect(result.report.msFromDatabaseBackToFirst2xx).toBeLessThan(2000);
    expect(api.servingPids()).toEqual([api.servingPid]);
    expect(api.child.exitCode).toBeNull();
    await nothingLost(result.load.acknowledged);
    expect(api.servingPids()).toEqual([api.servingPid]);
  }, 120_000);

  it('crash (immediate): pnpm start beside pnpm worker, both keep their processes, nothing lost', async () => {
    for (const p of processes.splice(0)) await p.stop();
    const api = await start('main', { WEBHOOK_WORKERS: '0' });
    const worker = await start('worker');
    const result = await restartUnderLoad('immediate', [api, worker]);
    expectOutageAnswered(result);
    expect(result.report.msFromDatabaseBackToFirst2xx).toBeLessThan(2000);
    await nothingLost(result.load.acknowledged);
    expect(api.servingPids()).toEqual([api.servingPid]);
    expect(worker.servingPids()).toEqual([worker.servingPid]);
    expect(api.output()).not.toMatch(/"level":(50|60)[^\n]*"kind":"(unhandled rejection|uncaught exception)"/);
    expect(worker.output()).not.toMatch(/"level":(50|60)[^\n]*"kind":"(unhandled rejection|uncaught exception)"/);
  }, 120_000);
});

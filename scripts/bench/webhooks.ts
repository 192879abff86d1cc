/**
 * Webhook delivery (D32, D35), on a PostgreSQL that waits for the disk and on one that does
 * not (`BENCH_FSYNC`, lib.ts):
 * - Throughput: a burst of events committed at once, delivered by a `pnpm worker` process to a
 *   loopback receiver answering 200, against a loop posting the same signed bodies to the same
 *   receiver over node:http keep-alive connections with as many in flight, in alternating
 *   rounds. Goal: at least 0.7 of the loop's deliveries/second.
 * - Lag: orders written through the API at a steady rate (each a protection/added event for
 *   an app subscribed to it), from the API's answer to the delivery's arrival. Goal: p99 under
 *   100 ms.
 * The API process runs no delivery worker (WEBHOOK_WORKERS=0): the worker process delivers.
 * Env: BENCH_WEBHOOK_BURST (default 3000), BENCH_WEBHOOK_CONCURRENCY (WEBHOOK_WORKERS, default
 * 10), BENCH_WEBHOOK_RATE (orders/s for the lag, default 100), BENCH_DURATION (seconds of the
 * lag run, default 10). BENCH_PG_STATS=1 prints the statements run per delivery in the bursts.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http, { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { transact } from '../../server/src/db/transact';
import { recordEvent } from '../../server/src/domain/webhooks/record';
import { signatureHeader, WEBHOOK_USER_AGENT, wireBody } from '../../server/src/domain/webhooks/send';
import { newId } from '../../server/src/lib/ids';
import { addCpuSince, type CpuMeters, cpuPerRequest, ownCpu, postgresCpu, processCpu, readCpu } from './cpu';
import { benchInstallation } from './install';
import {
  DURATION_S,
  type Fsync,
  fsyncDatabase,
  inTurn,
  type Measured,
  onEachFsync,
  percentile,
  printStatements,
  printTable,
  ROUNDS,
  resetStatements,
  startProcess,
  startService,
  stopProcess,
} from './lib';

const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 10);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 100);

/**
 * A receiver answering 200, noting when each event id arrived, and for protection/added when
 * the event of each source order id arrived.
 */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  const orders = new Map<string, number>();
  let waiter: { count: number; resolve: () => void } | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const id = String(req.headers['x-webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, at);
      if (req.headers['x-webhook-topic'] === 'protection/added') {
        const { body } = JSON.parse(Buffer.concat(chunks).toString()) as { body: { sourceOrderId: string } };
        if (!orders.has(body.sourceOrderId)) orders.set(body.sourceOrderId, at);
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      if (waiter && arrivals.size >= waiter.count) waiter.resolve();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    orders,
    /** Resolves once `count` distinct events arrived in total (fails after two minutes). */
    until(count: number): Promise<void> {
      if (arrivals.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${arrivals.size} of ${count} webhooks arrived`)),
          120_000,
        );
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            waiter = null;
            resolve();
          },
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** POSTs `body` with `headers` over `agent`'s keep-alive connections; resolves when answered. */
function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What the delivery rounds share: the database, the receiver, the subscribed app, the meters. */
interface HooksRig {
  db: Db;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  installed: Awaited<ReturnType<typeof benchInstallation>>;
  meters: CpuMeters;
  agent: http.Agent;
  /** The next event's number: every body differs. */
  counter: { n: number };
}

const eventBody = (rig: HooksRig) => {
  const n = rig.counter.n++;
  return {
    claimId: `cl_${n}`,
    storeId: rig.installed.store.id,
    messageId: `ms_${n}`,
    senderType: 'customer' as const,
    message: `bench message ${n}`,
  };
};

/** The service: BURST events committed in one transaction; seconds until all arrived. */
async function serviceRound(rig: HooksRig, cpu: Record<string, number> = {}): Promise<number> {
  const target = rig.receiver.arrivals.size + BURST;
  await transact(rig.db, async (trx) => {
    for (let i = 0; i < BURST; i++) {
      await recordEvent(trx, { storeId: rig.installed.store.id, topic: 'message/created', body: eventBody(rig) });
    }
  });
  const started = performance.now();
  const cpuBefore = readCpu(rig.meters);
  await rig.receiver.until(target);
  addCpuSince(cpu, cpuBefore, rig.meters);
  return (performance.now() - started) / 1000;
}

/** The baseline: the same signed bodies, CONCURRENCY in flight over keep-alive connections. */
async function baselineRound(rig: HooksRig, latencies: number[], cpu: Record<string, number> = {}): Promise<number> {
  const url = new URL(rig.receiver.url);
  const secret = rig.installed.webhookSecret;
  const events = Array.from({ length: BURST }, () => ({
    id: newId('evt'),
    topic: 'message/created' as const,
    createdAt: new Date(),
    body: eventBody(rig),
  }));
  const target = rig.receiver.arrivals.size + BURST;
  const started = performance.now();
  const cpuBefore = readCpu(rig.meters);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events.length) {
        const event = events[next++]!;
        const raw = wireBody(event);
        const timestamp = Math.floor(Date.now() / 1000);
        const t0 = performance.now();
        const headers = {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          'x-webhook-secret': secret,
          'x-webhook-id': event.id,
          'x-webhook-topic': event.topic,
          'x-webhook-timestamp': String(timestamp),
          'x-webhook-signature': signatureHeader([secret], event.id, timestamp, raw),
        };
        await post(rig.agent, url, headers, raw);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  await rig.receiver.until(target);
  addCpuSince(cpu, cpuBefore, rig.meters);
  return (performance.now() - started) / 1000;
}

/** Lag at a steady rate: orders through the API, from its answer to the event's arrival (ms, sorted). */
async function steadyLag(
  rig: HooksRig,
  databaseUrl: string,
  secret: Buffer,
  children: ChildProcess[],
): Promise<number[]> {
  const service = await startService(databaseUrl, secret);
  children.push(service.child);
  const token = rig.installed.tokenFor(service.base);
  const order = JSON.stringify({
    sourceOrderNumber: '#1001',
    currency: 'USD',
    platformId: 'api',
    total: 54.5,
    premiumPaid: 2.5,
    sourceCreatedAt: '2026-01-31T12:00:00.000Z',
  });
  const answeredAt = new Map<string, number>();
  const lagOrders = Math.max(10, Math.round(RATE * DURATION_S));
  const lagStart = performance.now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < lagOrders; i++) {
    const wait = lagStart + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const sourceOrderId = `lag-${i}`;
    writes.push(
      fetch(`${service.base}/v1/orders/${sourceOrderId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: order,
      }).then(async (res) => {
        await res.text();
        if (res.status !== 200) throw new Error(`PUT order answered ${res.status}`);
        answeredAt.set(sourceOrderId, performance.now());
      }),
    );
  }
  await Promise.all(writes);
  const { orders } = rig.receiver;
  const deadline = performance.now() + 30_000;
  while (orders.size < lagOrders && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (orders.size < lagOrders) throw new Error(`only ${orders.size} of ${lagOrders} arrived`);
  // An event may arrive before its answer is read: that lag counts as zero.
  return [...answeredAt].map(([id, at]) => Math.max(0, orders.get(id)! - at)).sort((a, b) => a - b);
}

/** `pnpm worker` with CONCURRENCY delivery workers, allowed to deliver to this loopback receiver. */
function startWorker(databaseUrl: string, secret: Buffer): Promise<ChildProcess> {
  const env = {
    DATABASE_URL: databaseUrl,
    SECRET_KEY: secret.toString('base64url'),
    WEBHOOK_WORKERS: String(CONCURRENCY),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'info',
  };
  return startProcess('server/src/worker.ts', env, 'delivering webhooks');
}

async function benchWebhooksOn(fsync: Fsync): Promise<Measured[]> {
  const database = await fsyncDatabase(fsync);
  const db = createDb(database.url);
  const receiver = await startReceiver();
  const secret = randomBytes(32);
  const children: ChildProcess[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'hooks', ['order:update'], {
      webhookUrl: receiver.url,
      webhookTopics: ['message/created', 'protection/added'],
    });
    const worker = await startWorker(database.url, secret);
    children.push(worker);
    // CPU per delivery of the worker, PostgreSQL, and this process (the receiver; in the
    // loop's rounds the loop too), over the measured rounds from commit to last arrival.
    const meters: CpuMeters = {
      worker: processCpu(worker.pid),
      postgres: await postgresCpu(database.url),
      'receiver (and loop)': ownCpu,
    };
    const rig: HooksRig = { db, receiver, installed, meters, agent, counter: { n: 0 } };
    const serviceCpu: Record<string, number> = {};
    const baselineCpu: Record<string, number> = {};
    const baselineLatencies: number[] = [];

    // Warm-up, then alternating rounds.
    await resetStatements(database.url);
    await serviceRound(rig);
    await baselineRound(rig, []);
    let serviceSeconds = 0;
    let baselineSeconds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of inTurn(['service', 'baseline'] as const, round)) {
        if (side === 'service') serviceSeconds += await serviceRound(rig, serviceCpu);
        else baselineSeconds += await baselineRound(rig, baselineLatencies, baselineCpu);
      }
    }
    await printStatements(database.url, BURST * (ROUNDS + 1));
    const lags = await steadyLag(rig, database.url, secret, children);
    const sortedBaseline = baselineLatencies.sort((a, b) => a - b);
    const measuredService: Measured = {
      name: `worker: burst of ${BURST}, ${CONCURRENCY} workers (p50/p99: answer-to-arrival lag at ${RATE} orders/s)`,
      rps: (BURST * ROUNDS) / serviceSeconds,
      p50: percentile(lags, 0.5),
      p99: percentile(lags, 0.99),
      non2xx: 0,
      errors: 0,
      cpu: cpuPerRequest(serviceCpu, BURST * ROUNDS),
    };
    const baseline: Measured = {
      name: `node:http keep-alive loop, same signed bodies, ${CONCURRENCY} in flight (p50/p99: request latency)`,
      rps: (BURST * ROUNDS) / baselineSeconds,
      p50: percentile(sortedBaseline, 0.5),
      p99: percentile(sortedBaseline, 0.99),
      non2xx: 0,
      errors: 0,
      cpu: cpuPerRequest(baselineCpu, BURST * ROUNDS),
    };
    printTable([measuredService, baseline]);
    process.stdout.write(
      `deliveries/s, worker / keep-alive loop: ${(measuredService.rps / baseline.rps).toFixed(2)} (goal >= 0.7); ` +
        `lag p99 ${measuredService.p99.toFixed(0)} ms (goal < 100)\n`,
    );
    return [measuredService, baseline];
  } finally {
    for (const child of children) await stopProcess(child);
    agent.destroy();
    await receiver.close();
    await db.destroy();
    await database.stop();
  }
}

export function benchWebhooks(): Promise<Measured[]> {
  return onEachFsync(benchWebhooksOn);
}

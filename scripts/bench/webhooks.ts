/**
 * Webhook delivery (D32, D35). Throughput: a burst of events committed at once, delivered by a
 * `pnpm worker` process to a loopback receiver answering 200, against a plain loop of `fetch`
 * posting the same signed bodies to the same receiver with the same concurrency, in
 * alternating rounds. Lag: events committed one by one at a steady rate well below
 * saturation, from commit to arrival. Env: BENCH_WEBHOOK_BURST (default 2000),
 * BENCH_WEBHOOK_CONCURRENCY (WEBHOOK_WORKERS, default 10), BENCH_WEBHOOK_RATE (events/s for
 * the lag, default 50) and BENCH_DURATION (seconds of the lag run, default 10).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { transact } from '../../server/src/db/transact';
import { registerApp } from '../../server/src/domain/identity/apps';
import { createStore } from '../../server/src/domain/identity/stores';
import { createUser } from '../../server/src/domain/identity/users';
import { recordEvent } from '../../server/src/domain/webhooks/record';
import { signatureHeader, WEBHOOK_USER_AGENT, wireBody } from '../../server/src/domain/webhooks/send';
import { newId } from '../../server/src/lib/ids';
import { benchDatabase, DURATION_S, type Measured, printTable, startProcess, stopProcess } from './lib';

const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 10);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 50);
const ROUNDS = 3;

/** A receiver answering 200, noting when each event id arrived. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  let waiter: { count: number; resolve: () => void } | null = null;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      if (waiter && arrivals.size >= waiter.count) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

export async function benchWebhooks(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const receiver = await startReceiver();
  const secretKey = randomBytes(32);
  let worker: ChildProcess | null = null;
  try {
    await migrateToLatest(db);
    const store = await createStore(db, { name: 'Bench hooks', domain: `bench-hooks-${Date.now()}.example.com` });
    const user = await createUser(db, {
      email: `bench-hooks-${Date.now()}@example.com`,
      password: 'bench-password',
      storeIds: [store.id],
    });
    const app = await registerApp(db, secretKey, user.id, {
      name: 'Bench hooks',
      redirectUris: ['https://bench.example.com/cb'],
      requestedScopes: ['order:read'],
      distribution: 'private',
      webhookUrl: receiver.url,
      webhookTopics: ['message/created'],
    });
    await db
      .insertInto('installations')
      .values({ id: newId('in'), storeId: store.id, clientId: app.clientId, scopes: ['order:read'] })
      .execute();
    const body = (n: number) => ({
      claimId: `cl_${n}`,
      storeId: store.id,
      messageId: `ms_${n}`,
      senderType: 'customer' as const,
      message: `bench message ${n}`,
    });
    worker = await startProcess(
      'server/src/worker.ts',
      {
        DATABASE_URL: database.url,
        SECRET_KEY: secretKey.toString('base64url'),
        WEBHOOK_WORKERS: String(CONCURRENCY),
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        LOG_LEVEL: 'info',
      },
      'delivering webhooks',
    );

    let n = 0;
    /** The service: BURST events committed in one transaction; seconds until all arrived. */
    const serviceRound = async () => {
      const target = receiver.arrivals.size + BURST;
      await transact(db, async (trx) => {
        for (let i = 0; i < BURST; i++) {
          await recordEvent(trx, { storeId: store.id, topic: 'message/created', body: body(n++) });
        }
      });
      const started = performance.now();
      await receiver.until(target);
      return (performance.now() - started) / 1000;
    };
    /** The baseline: the same signed bodies, posted by CONCURRENCY loops of fetch. */
    const baselineLatencies: number[] = [];
    const baselineRound = async () => {
      const events = Array.from({ length: BURST }, () => ({
        id: newId('evt'),
        topic: 'message/created' as const,
        createdAt: new Date(),
        body: body(n++),
      }));
      const target = receiver.arrivals.size + BURST;
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < events.length) {
            const event = events[next++]!;
            const raw = wireBody(event);
            const timestamp = Math.floor(Date.now() / 1000);
            const t0 = performance.now();
            const res = await fetch(receiver.url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'user-agent': WEBHOOK_USER_AGENT,
                'x-webhook-secret': app.webhookSecret,
                'x-webhook-id': event.id,
                'x-webhook-topic': event.topic,
                'x-webhook-timestamp': String(timestamp),
                'x-webhook-signature': signatureHeader([app.webhookSecret], event.id, timestamp, raw),
              },
              body: raw,
            });
            await res.text();
            baselineLatencies.push(performance.now() - t0);
          }
        }),
      );
      await receiver.until(target);
      return (performance.now() - started) / 1000;
    };

    // Warm-up, then alternating rounds.
    await serviceRound();
    await baselineRound();
    baselineLatencies.length = 0;
    let serviceSeconds = 0;
    let baselineSeconds = 0;
    for (let round = 0; round < ROUNDS; round++) {
      serviceSeconds += await serviceRound();
      baselineSeconds += await baselineRound();
    }

    // Lag at a steady rate: each event committed on its own, commit to arrival.
    const committedAt = new Map<string, number>();
    const lagEvents = Math.max(10, Math.round(RATE * DURATION_S));
    const before = receiver.arrivals.size;
    const lagStart = performance.now();
    for (let i = 0; i < lagEvents; i++) {
      const due = lagStart + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const event = await transact(db, (trx) =>
        recordEvent(trx, { storeId: store.id, topic: 'message/created', body: body(n++) }),
      );
      committedAt.set(event.id, performance.now());
    }
    await receiver.until(before + lagEvents);
    const lags = [...committedAt].map(([id, at]) => receiver.arrivals.get(id)! - at).sort((a, b) => a - b);
    const sortedBaseline = baselineLatencies.sort((a, b) => a - b);

    const service: Measured = {
      name: `service: burst of ${BURST} via ${CONCURRENCY} workers (p50/p99: commit-to-arrival lag at ${RATE}/s)`,
      rps: (BURST * ROUNDS) / serviceSeconds,
      p50: percentile(lags, 0.5),
      p99: percentile(lags, 0.99),
      non2xx: 0,
      errors: 0,
    };
    const baseline: Measured = {
      name: `fetch loop, same signed bodies, concurrency ${CONCURRENCY} (p50/p99: request latency)`,
      rps: (BURST * ROUNDS) / baselineSeconds,
      p50: percentile(sortedBaseline, 0.5),
      p99: percentile(sortedBaseline, 0.99),
      non2xx: 0,
      errors: 0,
    };
    printTable([service, baseline]);
    process.stdout.write(
      `ratio service/fetch loop (deliveries/s): ${(service.rps / baseline.rps).toFixed(2)} (goal >= 0.50); ` +
        `lag p99 ${service.p99.toFixed(0)} ms (goal < 1000)\n`,
    );
    return [service, baseline];
  } finally {
    if (worker) await stopProcess(worker);
    await receiver.close();
    await db.destroy();
    await database.stop();
  }
}

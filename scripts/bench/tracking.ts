/**
 * The inbound tracking webhook (D54), `POST /v1/tracking/inbound/:sourceId` through the full
 * service, against node:http verifying the same AfterShip HMAC over the raw body and inserting
 * the package and its five events in one `pg` transaction (serve-tracking-baseline.ts), in
 * alternating rounds at the same concurrency. Every request carries a fresh package (a new
 * tracking number and event id, five checkpoints), signed as AfterShip signs, so each really
 * inserts. Goal: at least 0.5 of the baseline's requests/second.
 * Env: BENCH_CONNECTIONS (default 50), BENCH_DURATION (seconds over all rounds, default 10).
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { createStore } from '../../server/src/domain/identity/stores';
import { freePort } from '../../server/src/free-port';
import { deriveKey, encrypt } from '../../server/src/lib/crypto';
import { newId } from '../../server/src/lib/ids';
import {
  benchDatabase,
  CONNECTIONS,
  compare,
  type Measured,
  printTable,
  type Round,
  startProcess,
  startService,
  stopProcess,
} from './lib';

const TAGS = ['InfoReceived', 'InTransit', 'InTransit', 'InTransit', 'OutForDelivery'];

/** One AfterShip payload of one fresh package with five checkpoints, and its signature header. */
function signedPayload(secret: string, n: number, prefix: string): { raw: string; signature: string } {
  const start = Date.parse('2026-11-17T09:00:00Z');
  const raw = JSON.stringify({
    event: 'tracking_update',
    event_id: `${prefix}-${n}-${randomBytes(4).toString('hex')}`,
    msg: {
      tracking_number: `1ZBENCH${prefix}${n}`,
      slug: 'ups',
      tag: 'OutForDelivery',
      expected_delivery: '2026-11-20T18:00:00+00:00',
      checkpoints: TAGS.map((tag, i) => ({
        slug: 'ups',
        checkpoint_time: new Date(start + i * 6 * 3_600_000).toISOString(),
        tag,
        subtag: `${tag}_001`,
        message: `Scan ${i + 1}`,
        location: 'Secaucus, NJ, USA',
        city: 'Secaucus',
        state: 'NJ',
        country_name: 'USA',
      })),
    },
  });
  return { raw, signature: createHmac('sha256', secret).update(raw).digest('base64') };
}

function post(agent: http.Agent, url: URL, raw: string, signature: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(raw)),
          'aftership-hmac-sha256': signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(raw);
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** A target posting freshly signed payloads over CONNECTIONS keep-alive connections for a round. */
function signedTarget(name: string, url: string, secret: string, prefix: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const counter = { n: 0 };
  return {
    name,
    async run(durationS: number): Promise<Round> {
      const latencies: number[] = [];
      let non2xx = 0;
      let errors = 0;
      const started = performance.now();
      const until = started + durationS * 1000;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (performance.now() < until) {
            const { raw, signature } = signedPayload(secret, counter.n++, prefix);
            const t0 = performance.now();
            try {
              const status = await post(agent, new URL(url), raw, signature);
              if (status < 200 || status > 299) non2xx++;
            } catch {
              errors++;
            }
            latencies.push(performance.now() - t0);
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      return {
        requests: latencies.length,
        seconds: (performance.now() - started) / 1000,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        non2xx,
        errors,
      };
    },
  };
}

export async function benchTracking(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secretKey = randomBytes(32);
  try {
    await migrateToLatest(db);
    const store = await createStore(db, { name: 'Bench', domain: `bench-tracking-${Date.now()}.example.com` });
    const sourceSecret = randomBytes(24).toString('base64url');
    const sourceId = newId('trs');
    await db
      .insertInto('trackingSources')
      .values({
        id: sourceId,
        storeId: store.id,
        livemode: true,
        provider: 'aftership',
        secretCiphertext: encrypt(deriveKey(secretKey, 'tracking-secret-encryption'), sourceSecret),
      })
      .execute();
    const service = await startService(database.url, secretKey);
    const barePort = await freePort();
    const bare = await startProcess('scripts/bench/serve-tracking-baseline.ts', {
      PORT: String(barePort),
      BENCH_DATABASE_URL: database.url,
      BENCH_STORE_ID: store.id,
      BENCH_TRACKING_SECRET: sourceSecret,
    });
    let rows: Measured[];
    try {
      const probe = signedPayload(sourceSecret, 0, 'probe');
      const status = await post(
        new http.Agent(),
        new URL(`${service.base}/v1/tracking/inbound/${sourceId}`),
        probe.raw,
        probe.signature,
      );
      if (status !== 200) throw new Error(`POST /v1/tracking/inbound answered ${status}`);
      rows = await compare([
        signedTarget(
          'POST /v1/tracking/inbound (5 events)',
          `${service.base}/v1/tracking/inbound/${sourceId}`,
          sourceSecret,
          's',
        ),
        signedTarget(
          'node:http + HMAC + one pg transaction',
          `http://127.0.0.1:${barePort}/inbound`,
          sourceSecret,
          'b',
        ),
      ]);
    } finally {
      await stopProcess(service.child);
      await stopProcess(bare);
    }
    printTable(rows);
    process.stdout.write(
      `inbound webhook / baseline at ${CONNECTIONS} connections: ${(rows[0]!.rps / rows[1]!.rps).toFixed(2)} (goal: at least 0.5)\n`,
    );
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}

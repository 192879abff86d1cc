/**
 * The inbound tracking webhook (D54), `POST /v1/tracking/inbound/:sourceId` through the full
 * service, against node:http verifying the same AfterShip HMAC over the raw body and inserting
 * the package and its five events in one `pg` transaction (serve-tracking-baseline.ts), in
 * alternating rounds at the same concurrency. Two service targets, each signed as AfterShip signs
 * and each really inserting five checkpoints:
 * - unbound: every request a fresh number no fulfillment names yet (kept for late binding);
 * - bound: numbers of fulfillments PUT before the rounds, each request five later checkpoints
 *   whose last status differs from the one before, so it also emits `tracking/updated` and
 *   queues the rules' evaluation (D54), as a sale day's deliveries do.
 * Goal: each at least 0.5 of the baseline's requests/second.
 * Env: BENCH_CONNECTIONS (default 50), BENCH_DURATION (seconds over all rounds, default 10).
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { freePort } from '../../server/src/free-port';
import { deriveKey, encrypt } from '../../server/src/lib/crypto';
import { newId } from '../../server/src/lib/ids';
import { benchInstallation } from './install';
import {
  benchDatabase,
  CONNECTIONS,
  compare,
  type Measured,
  percentile,
  printTable,
  type Round,
  startProcess,
  startService,
  stopProcess,
} from './lib';
import { ORDER_WITH_ITEM } from './writes';

const TAGS = ['InfoReceived', 'InTransit', 'InTransit', 'InTransit', 'OutForDelivery'];
const IN_TRANSIT = ['InTransit', 'InTransit', 'InTransit', 'InTransit', 'InTransit'];
const START = Date.parse('2026-11-17T09:00:00Z');
const HOUR = 3_600_000;

/** How many fulfillments the bound target's numbers belong to. */
const BOUND_PACKAGES = 500;

/** An AfterShip payload of one package with five checkpoints, and its signature header. */
function signedPayload(
  secret: string,
  trackingNumber: string,
  eventId: string,
  tags: readonly string[],
  start: number,
): { raw: string; signature: string } {
  const raw = JSON.stringify({
    event: 'tracking_update',
    event_id: eventId,
    msg: {
      tracking_number: trackingNumber,
      slug: 'ups',
      tag: tags.at(-1),
      expected_delivery: new Date(start + 80 * HOUR).toISOString(),
      checkpoints: tags.map((tag, i) => ({
        slug: 'ups',
        checkpoint_time: new Date(start + i * HOUR).toISOString(),
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

/** The n-th payload of a fresh package. */
const freshPackage = (prefix: string) => (secret: string, n: number) =>
  signedPayload(secret, `1ZBENCH${prefix}${n}`, `${prefix}-${n}-${randomBytes(4).toString('hex')}`, TAGS, START);

/**
 * The n-th payload to one of the bound numbers: five checkpoints later than any before on that
 * number, ending in transit and out for delivery by turns, so every delivery changes its status.
 */
function boundPackage(secret: string, n: number) {
  const pass = Math.floor(n / BOUND_PACKAGES);
  const tags = pass % 2 === 0 ? TAGS : IN_TRANSIT;
  return signedPayload(secret, `1ZBOUND${n % BOUND_PACKAGES}`, `bound-${n}`, tags, START + pass * 5 * HOUR);
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

/** A target posting freshly signed payloads over CONNECTIONS keep-alive connections for a round. */
function signedTarget(
  name: string,
  url: string,
  secret: string,
  payload: (secret: string, n: number) => { raw: string; signature: string },
) {
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
            const { raw, signature } = payload(secret, counter.n++);
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

/** BOUND_PACKAGES orders, each with a fulfillment naming one number, PUT through the service. */
async function putBoundOrders(base: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const put = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'PUT', headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`PUT ${path} answered ${res.status}: ${await res.text()}`);
  };
  for (let from = 0; from < BOUND_PACKAGES; from += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, BOUND_PACKAGES - from) }, async (_, k) => {
        const i = from + k;
        await put(`/v1/orders/bound-${i}`, ORDER_WITH_ITEM);
        await put(`/v1/orders/bound-${i}/fulfillments/f1`, {
          fulfillmentStatus: 'FULFILLED', // no tracking event of its own: the payloads' times decide
          trackingCompany: 'UPS',
          trackingNumber: [`1ZBOUND${i}`],
        });
      }),
    );
  }
}

export async function benchTracking(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secretKey = randomBytes(32);
  try {
    await migrateToLatest(db);
    const installation = await benchInstallation(db, secretKey, 'tracking', ['order:update']);
    const store = installation.store;
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
    const inbound = `${service.base}/v1/tracking/inbound/${sourceId}`;
    const barePort = await freePort();
    const bare = await startProcess('scripts/bench/serve-tracking-baseline.ts', {
      PORT: String(barePort),
      BENCH_DATABASE_URL: database.url,
      BENCH_STORE_ID: store.id,
      BENCH_TRACKING_SECRET: sourceSecret,
    });
    let rows: Measured[];
    try {
      await putBoundOrders(service.base, installation.tokenFor(service.base));
      const probe = freshPackage('probe')(sourceSecret, 0);
      const status = await post(new http.Agent(), new URL(inbound), probe.raw, probe.signature);
      if (status !== 200) throw new Error(`POST /v1/tracking/inbound answered ${status}`);
      rows = await compare([
        signedTarget('POST /v1/tracking/inbound, unbound (5 events)', inbound, sourceSecret, freshPackage('s')),
        signedTarget('POST /v1/tracking/inbound, bound (5 events)', inbound, sourceSecret, boundPackage),
        signedTarget(
          'node:http + HMAC + one pg transaction',
          `http://127.0.0.1:${barePort}/inbound`,
          sourceSecret,
          freshPackage('b'),
        ),
      ]);
    } finally {
      await stopProcess(service.child);
      await stopProcess(bare);
    }
    printTable(rows);
    const baseline = rows[2]!.rps;
    process.stdout.write(
      `inbound webhook / baseline at ${CONNECTIONS} connections: unbound ${(rows[0]!.rps / baseline).toFixed(2)}, ` +
        `bound ${(rows[1]!.rps / baseline).toFixed(2)} (goal: each at least 0.5)\n`,
    );
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}

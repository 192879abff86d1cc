/**
 * D48 retention: 1,000,000 webhook events (`BENCH_RETENTION_EVENTS`), each with a delivered
 * delivery and its attempt, recorded 60 days ago (written in SQL), pruned as the delivering
 * processes prune them (`pruneEvents`, 1,000 events a transaction, resting between batches). Reports
 * the tables' size before and after, the prune's duration and each batch's, and the order
 * write's latency while the prune runs against without it, in alternating rounds of one run.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { PRUNE_BATCH, pruneEvents } from '../../server/src/domain/webhooks/retention';
import { benchInstallation } from './install';
import { benchDatabase, CONNECTIONS, compare, printTable, type Round, startService, stopProcess } from './lib';
import { ORDER } from './writes';

const EVENTS = Number(process.env.BENCH_RETENTION_EVENTS ?? 1_000_000);
const RETENTION_DAYS = 30;
const TABLES = ['webhook_events', 'webhook_deliveries', 'webhook_attempts'] as const;

/** The events, deliveries and attempts, 60 days old, in chunks of 100,000 events. */
async function seedOldEvents(db: Db, storeId: string, clientId: string, installationId: string): Promise<void> {
  const body = JSON.stringify({
    orderId: 'ord_bench',
    sourceOrderId: 'bench-1001',
    storeId,
    policyId: 'pol_bench',
    premiumPaid: 2.95,
    currency: 'USD',
  });
  for (let from = 1; from <= EVENTS; from += 100_000) {
    const to = Math.min(EVENTS, from + 99_999);
    await sql`
      with e as (
        insert into webhook_events (id, store_id, topic, body, created_at)
        select 'evt_old_' || n, ${storeId}, 'protection/added', ${body}::json,
          now() - interval '60 days' + n * interval '1 ms'
        from generate_series(${from}::int, ${to}::int) n
        returning id, created_at
      ), d as (
        insert into webhook_deliveries
          (event_id, client_id, installation_id, status, attempt_count, next_attempt_at, created_at, updated_at, queued_at)
        select e.id, ${clientId}, ${installationId}, 'delivered', 1, null, e.created_at, e.created_at, e.created_at
        from e
        returning event_id, created_at
      )
      insert into webhook_attempts (event_id, client_id, attempted_at, duration_ms, status_code, response_excerpt)
      select d.event_id, ${clientId}, d.created_at, 42, 200, 'ok' from d
    `.execute(db);
  }
  await sql`analyze webhook_events, webhook_deliveries, webhook_attempts`.execute(db);
}

/** Each table's total size (heap, indexes, TOAST), in MB, and the events left. */
async function sizes(db: Db): Promise<string> {
  const { rows } = await sql<{ name: string; mb: number }>`
    select t.name, round(pg_total_relation_size(t.name::regclass) / 1048576.0, 1)::float8 as mb
    from unnest(${[...TABLES]}::text[]) t (name)
  `.execute(db);
  const left = await sql<{ n: number }>`select count(*)::int as n from webhook_events`.execute(db);
  return `${rows.map((r) => `${r.name} ${r.mb} MB`).join(', ')}; ${left.rows[0]!.n} events`;
}

/**
 * The prune as a delivering process runs it (`pruneEvents`: batch after batch, resting between
 * them), while `running()` says so; each batch's duration is kept. Answers whether it is done.
 */
async function pruneWhile(db: Db, running: () => boolean, batchMs: number[]): Promise<boolean> {
  let interrupted = false;
  await pruneEvents(db, RETENTION_DAYS, {
    stopped: () => {
      interrupted = !running();
      return interrupted;
    },
    onBatch: (ms) => batchMs.push(ms),
  });
  return !interrupted;
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

export async function benchRetention(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url, { max: 4 });
  const secret = randomBytes(32);
  try {
    await migrateToLatest(db);
    const install = await benchInstallation(db, secret, 'retention', ['order:update']);
    let started = performance.now();
    await seedOldEvents(db, install.store.id, install.clientId, install.installationId);
    process.stdout.write(
      `seeded ${EVENTS} events 60 days old in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
    process.stdout.write(`before the prune: ${await sizes(db)}\n`);
    const service = await startService(database.url, secret);
    const batchMs: number[] = [];
    let pruneMs = 0;
    let done = false;
    try {
      const headers = { authorization: `Bearer ${install.tokenFor(service.base)}`, 'content-type': 'application/json' };
      const orders = async (prefix: string, durationS: number): Promise<Round> => {
        const r = await autocannon({
          url: `${service.base}/v1/orders/${prefix}-[<id>]`,
          method: 'PUT',
          headers,
          body: JSON.stringify(ORDER),
          connections: CONNECTIONS,
          duration: durationS,
          idReplacement: true,
        });
        const { total: requests } = r.requests;
        return {
          requests,
          seconds: r.duration,
          p50: r.latency.p50,
          p99: r.latency.p99,
          non2xx: r.non2xx,
          errors: r.errors,
        };
      };
      const rows = await compare([
        { name: 'PUT new order, no prune', run: (s: number) => orders('quiet', s) },
        {
          name: `PUT new order, during the prune`,
          async run(s: number) {
            let loading = true;
            const at = performance.now();
            const pruning = done ? Promise.resolve(true) : pruneWhile(db, () => loading, batchMs);
            const round = await orders('pruned', s);
            loading = false;
            done = await pruning;
            pruneMs += performance.now() - at;
            return round;
          },
        },
      ]);
      printTable(rows);
    } finally {
      await stopProcess(service.child);
    }
    const underLoad = batchMs.length;
    started = performance.now();
    if (!done) await pruneWhile(db, () => true, batchMs);
    const aloneMs = performance.now() - started;
    if (done) process.stdout.write('the prune ended during the order rounds: its last rounds ran without it\n');
    process.stdout.write(
      `prune: ${batchMs.length} batches of up to ${PRUNE_BATCH} events; ${underLoad} during the order rounds ` +
        `(${(pruneMs / 1000).toFixed(1)} s), the rest alone in ${(aloneMs / 1000).toFixed(1)} s; ` +
        `one batch (one transaction) p50 ${quantile(batchMs, 0.5).toFixed(0)} ms, ` +
        `p99 ${quantile(batchMs, 0.99).toFixed(0)} ms, max ${Math.max(...batchMs).toFixed(0)} ms\n`,
    );
    process.stdout.write(`after the prune: ${await sizes(db)}\n`);
    await sql`vacuum webhook_events, webhook_deliveries, webhook_attempts`.execute(db);
    process.stdout.write(`after VACUUM: ${await sizes(db)}\n`);
  } finally {
    await db.destroy();
    await database.stop();
  }
}

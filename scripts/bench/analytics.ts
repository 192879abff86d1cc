/**
 * `pnpm bench analytics` (D52): the store summary of a year on a store of 100,000 orders (half
 * of them protected, in two currencies) and 10,000 claims (with their items, first decisions
 * and resolutions), against the cheapest read of the same rows, `count(*)` of the period's
 * orders, in the same run: alternating rounds, one call at a time, p50 and p99 and the ratio
 * of p50s. The summary is measured as its route runs it (the domain function, one pool), once
 * folded and once with a second of order writes (1,000) not yet folded, beside the other way
 * to keep the write free of counting: the order figures counted from the rows at read time.
 * BENCH_ANALYTICS_ORDERS and BENCH_ANALYTICS_CLAIMS size the store (1,000,000 and 100,000).
 */
import { sql } from 'kysely';
import { createDb, type Db } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { transact } from '../../server/src/db/transact';
import { foldInProgress, foldRollups, foldRollupsFully } from '../../server/src/domain/analytics/rollups';
import { analyticsSummary } from '../../server/src/domain/analytics/summary';
import { createStore } from '../../server/src/domain/identity/stores';
import { benchDatabase, inTurn, percentile, ROUNDS } from './lib';

const ORDERS = Number(process.env.BENCH_ANALYTICS_ORDERS ?? 100_000);
const CLAIMS = Number(process.env.BENCH_ANALYTICS_CLAIMS ?? 10_000);
const REQUESTS = Number(process.env.BENCH_ANALYTICS_REQUESTS ?? 20);
const PERIOD = { from: '2026-01-01', to: '2026-12-31' };

/** Orders over the year, every other one protected, a third in EUR; claims on protected orders. */
export async function seed(db: Db, storeId: string): Promise<void> {
  await sql`
    insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at, platform_id, total)
    select 'ord_an_' || n, ${storeId}, 'an-' || n, '#' || n, case when n % 3 = 0 then 'EUR' else 'USD' end,
      timestamptz '2026-01-01' + (n % 365) * interval '1 day' + (n % 86400) * interval '1 second', 'api', 100
    from generate_series(1, ${ORDERS}) n`.execute(db);
  await sql`
    insert into protection_policies (id, store_id, order_id, premium_paid, premium_currency, customer_amount, insured_amount)
    select 'pol_an_' || n, ${storeId}, 'ord_an_' || n, 1.25 + (n % 7) * 0.5, case when n % 3 = 0 then 'EUR' else 'USD' end, 1, 100
    from generate_series(2, ${ORDERS}, 2) n`.execute(db);
  await sql`
    insert into claims (id, store_id, order_id, source_order_id, claim_type, claim_category, sales_channel, created_at, updated_at, claim_state)
    select 'clm_an_' || n, ${storeId}, 'ord_an_' || (n * 2), 'an-' || (n * 2), 'DAMAGED', 'SHIPPING', 'ONLINE',
      o.source_created_at + interval '2 days', o.source_created_at + interval '2 days',
      case n % 3 when 0 then 'APPROVED' when 1 then 'DENIED' else 'NEW' end
    from generate_series(1, ${CLAIMS}) n join orders o on o.id = 'ord_an_' || (n * 2)`.execute(db);
  await sql`
    insert into claim_items (id, claim_id, position, item_id, quantity, issue_type, source_product_id)
    select 'cli_an_' || n, 'clm_an_' || n, 1, 'item-1', 1, (array['DAMAGED', 'LOST', 'STOLEN'])[n % 3 + 1], 'prod-' || (n % 50)
    from generate_series(1, ${CLAIMS}) n`.execute(db);
  await sql`
    insert into claim_state_changes (claim_id, from_state, to_state, created_at)
    select id, 'NEW', claim_state, created_at + (hashtext(id) % 48 + 49) * interval '1 hour'
    from claims where store_id = ${storeId} and claim_state <> 'NEW'`.execute(db);
  await sql`
    insert into claim_resolutions (id, claim_id, position, resolution_type, paid_value, paid_currency, claim_state, created_at)
    select 'res_' || c.id, c.id, 0, 'REFUND', 10.5, o.currency, 'APPROVED', c.created_at + interval '3 days'
    from claims c join orders o on o.id = c.order_id where c.store_id = ${storeId} and c.claim_state = 'APPROVED'`.execute(
    db,
  );
  await sql`analyze`.execute(db);
}

/**
 * The first fold counts everything seeded, as the first after the watermark migration does,
 * in rounds of a short transaction each (rollups.ts): their number, the longest, and all.
 */
async function firstFold(db: Db): Promise<void> {
  const started = performance.now();
  let folded = 0;
  let rounds = 0;
  let longest = 0;
  do {
    const at = performance.now();
    folded += await foldRollups(db, { budgetMs: 0 });
    longest = Math.max(longest, performance.now() - at);
    rounds++;
  } while (await foldInProgress(db));
  process.stdout.write(
    `first fold: ${folded} orders, claims and resolutions in ${((performance.now() - started) / 1000).toFixed(1)} s, ` +
      `${rounds} rounds (transactions), the longest ${longest.toFixed(0)} ms\n`,
  );
}

/** Orders changed since the fold when the summary is read: a second of writes at 1,000 a second. */
const UNFOLDED = 1_000;

/**
 * The summary read while `UNFOLDED` orders changed since the last fold, as a read in the second
 * before a fold does: they are changed and folded once, and each read runs in a transaction
 * that puts the fold's watermark back below them (and rolls back). On the transaction's one
 * connection the summary's reads run one after another, not side by side as on the pool: part
 * of its difference from the folded read is that.
 */
async function unfolded(db: Db, storeId: string): Promise<() => Promise<unknown>> {
  const { rows } = await sql<{ xid: string }>`select xid::text from analytics_fold`.execute(db);
  await sql`update orders set source_created_at = source_created_at + interval '1 hour'
    where id in (select 'ord_an_' || n from generate_series(1, ${UNFOLDED}) n)`.execute(db);
  await foldRollupsFully(db);
  return () =>
    transact(db, async (trx) => {
      await sql`update analytics_fold set xid = ${rows[0]!.xid}::xid8`.execute(trx);
      await analyticsSummary(trx, storeId, PERIOD);
      throw new Rollback();
    }).catch((err) => {
      if (!(err instanceof Rollback)) throw err;
    });
}
class Rollback extends Error {}

/**
 * The other way to keep the order write free of counting: count the period's orders,
 * protected orders and premiums per currency from the rows at read time, through the index
 * on (store, day placed) and the policies' index on their order.
 */
function countedFromRows(db: Db, storeId: string) {
  return sql`
    select x.currency, sum(x.orders), sum(x.protected_orders), sum(x.premiums)
    from orders o cross join lateral (
      select o.currency, 1 as orders, 0 as protected_orders, 0::numeric as premiums
      union all
      select coalesce(pp.premium_currency, o.currency), 0, 1, pp.premium_paid
      from protection_policies pp where pp.order_id = o.id and pp.removed_at is null and pp.deleted_at is null
    ) x
    where o.store_id = ${storeId} and o.deleted_at is null
      and o.source_created_at >= ${PERIOD.from}::date and o.source_created_at < ${PERIOD.to}::date + 1
    group by 1`.execute(db);
}

export async function benchAnalytics(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  try {
    await migrateToLatest(db);
    const store = await createStore(db, {
      name: 'Bench analytics',
      domain: `bench-analytics-${Date.now()}.example.com`,
    });
    const started = Date.now();
    await seed(db, store.id);
    process.stdout.write(
      `seeded ${ORDERS} orders and ${CLAIMS} claims in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    await firstFold(db);
    const unfoldedSummary = await unfolded(db, store.id);
    const targets = [
      {
        name: "count(*) of the period's orders (baseline)",
        run: () =>
          sql`select count(*) from orders where store_id = ${store.id} and deleted_at is null
            and source_created_at >= ${PERIOD.from}::date and source_created_at < ${PERIOD.to}::date + 1`.execute(db),
        durations: [] as number[],
      },
      {
        name: 'GET /v1/analytics/summary, 365 days',
        run: () => analyticsSummary(db, store.id, PERIOD),
        durations: [] as number[],
      },
      {
        name: `the same, ${UNFOLDED} orders changed since the fold`,
        run: unfoldedSummary,
        durations: [] as number[],
      },
      {
        name: "the order figures counted from the rows' indexes",
        run: () => countedFromRows(db, store.id),
        durations: [] as number[],
      },
    ];
    const summary = await analyticsSummary(db, store.id, PERIOD);
    process.stdout.write(`summary: ${JSON.stringify({ ...summary, topProducts: summary.topProducts.length })}\n`);
    for (const t of targets) for (let i = 0; i < 3; i++) await t.run();
    for (let round = 0; round < ROUNDS; round++)
      for (const t of inTurn(targets, round))
        for (let i = 0; i < REQUESTS; i++) {
          const at = performance.now();
          await t.run();
          t.durations.push(performance.now() - at);
        }
    const rows = targets.map((t) => {
      const sorted = [...t.durations].sort((a, b) => a - b);
      return { name: t.name, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
    });
    const base = rows[0]!;
    for (const r of rows)
      process.stdout.write(
        `${r.name.padEnd(44)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  p50 / baseline ${(r.p50 / base.p50).toFixed(1)}\n`,
      );
  } finally {
    await db.destroy();
    await database.stop();
  }
}

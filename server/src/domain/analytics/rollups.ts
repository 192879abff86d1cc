import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';

/**
 * D52's day rollups, counted after the writes (migration 20261129000000): a write records only
 * which transaction changed a counted row (`changed_xid`). A fold recounts what changed below
 * a watermark every transaction has passed, from scratch, and adds the difference from its
 * ledger (what it counted of each order, claim and resolution before) to the day rows; a
 * reader adds, for what changed since the watermark, its figures now less its ledger's.
 */

const DAY = (at: string) => `(${at} at time zone 'UTC')::date`;
/** D22: the states a first decision moves a claim to, and those of them that approve. */
const DECIDING = `('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED')`;
const APPROVING = `('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND')`;

const XID = /^\d+$/;

/** Which `changed_xid`s a statement reads: `column` within them, as SQL. */
type Range = (column: string) => string;

/**
 * Each day table: the columns a day row is kept by and those it adds up; its ledger, one row
 * per counted thing (`entity`) and key; which things changed within a range (an order by its
 * row or a policy's, a claim by its row or a state change's, a resolution by its row, its
 * claim's or its order's, whose currency it may take); and their figures now, of those
 * among `changed`.
 */
export const ROLLUPS = {
  analytics_order_days: {
    key: ['store_id', 'day', 'currency'],
    sums: ['orders', 'protected_orders', 'premiums'],
    ledger: 'analytics_order_counted',
    entity: 'order_id',
    changed: (r: Range) => `
      select id from orders where ${r('changed_xid')}
      union select order_id from protection_policies where ${r('changed_xid')}`,
    now: `
      select o.id as order_id, o.store_id, ${DAY('o.source_created_at')} as day, x.currency,
        sum(x.orders) as orders, sum(x.protected_orders) as protected_orders, sum(x.premiums) as premiums
      from orders o cross join lateral (
        select o.currency, 1 as orders, 0 as protected_orders, 0::numeric as premiums
        union all
        select coalesce(pp.premium_currency, o.currency), 0, 1, coalesce(pp.premium_paid, 0)
        from protection_policies pp where pp.order_id = o.id and pp.removed_at is null and pp.deleted_at is null
      ) x
      where o.id in (select id from changed) and o.deleted_at is null
      group by o.id, x.currency`,
  },
  analytics_claim_days: {
    key: ['store_id', 'day'],
    sums: ['claims', 'decided', 'approved'],
    ledger: 'analytics_claim_counted',
    entity: 'claim_id',
    changed: (r: Range) => `
      select id from claims where ${r('changed_xid')}
      union select claim_id from claim_state_changes where ${r('changed_xid')}`,
    now: `
      select c.id as claim_id, c.store_id, ${DAY('c.created_at')} as day, 1 as claims,
        case when d.to_state is not null then 1 else 0 end as decided,
        case when d.to_state in ${APPROVING} then 1 else 0 end as approved
      from claims c left join lateral (
        select s.to_state from claim_state_changes s
        where s.claim_id = c.id and s.to_state in ${DECIDING} order by s.id limit 1
      ) d on true
      where c.id in (select id from changed) and c.deleted_at is null`,
  },
  analytics_paid_days: {
    key: ['store_id', 'day', 'resolution_type', 'currency'],
    sums: ['resolutions', 'amount'],
    ledger: 'analytics_paid_counted',
    entity: 'resolution_id',
    changed: (r: Range) => `
      select id from claim_resolutions where ${r('changed_xid')}
      union select r.id from claims c join claim_resolutions r on r.claim_id = c.id where ${r('c.changed_xid')}
      union select r.id from orders o join claims c on c.order_id = o.id
        join claim_resolutions r on r.claim_id = c.id where ${r('o.changed_xid')}`,
    now: `
      select r.id as resolution_id, c.store_id, ${DAY('r.created_at')} as day, r.resolution_type,
        coalesce(r.paid_currency, o.currency) as currency, 1 as resolutions, r.paid_value as amount
      from claim_resolutions r join claims c on c.id = r.claim_id and c.deleted_at is null
        join orders o on o.id = c.order_id
      where r.id in (select id from changed) and r.deleted_at is null and r.paid_value is not null`,
  },
} as const;
export type Rollup = keyof typeof ROLLUPS;

const list = (columns: readonly string[], prefix = '') => columns.map((c) => prefix + c).join(', ');
const negated = (sums: readonly string[]) => sums.map((c) => `-${c} as ${c}`).join(', ');

/** What changed within `range`, its figures now and its ledger's, as CTEs `changed`, `now`. */
function changes(table: Rollup, range: Range): string {
  const r = ROLLUPS[table];
  return `changed as (select distinct id from (${r.changed(range)}) c), now as (${r.now})`;
}

/**
 * A day table's rows as a reader must see them: its day rows, and for what changed since the
 * fold's watermark (or is being written by the reader's own transaction), its figures now less
 * what the ledger counted of it, so a figure never depends on the fold having run. One
 * statement reads it all in one snapshot.
 *
 * `watermark` (`rollupWatermark`) instead of the one the statement reads lets the planner see
 * how few rows changed since it. An older watermark than the fold's is never wrong, only more
 * work: what changed before it has figures now equal to its ledger's.
 */
export function rollupRows(table: Rollup, watermark?: string): RawBuilder<unknown> {
  const { key, sums, ledger, entity } = ROLLUPS[table];
  const columns = list([...key, ...sums]);
  if (watermark !== undefined && !XID.test(watermark)) throw new Error(`not a transaction id: ${watermark}`);
  const since: Range = (column) =>
    `${column} >= ${watermark === undefined ? '(select xid from analytics_fold)' : `'${watermark}'::xid8`}`;
  return sql.raw(`(select ${columns} from ${table}
    union all (
      with ${changes(table, since)}
      select ${columns} from now
      union all select ${list(key)}, ${negated(sums)} from ${ledger} where ${entity} in (select id from changed)
    ))`);
}

/** Folds one day table's changes within `range` into its day rows and ledger; answers how many things. */
async function foldTable(trx: Db, table: Rollup, range: Range): Promise<number> {
  const { key, sums, ledger, entity } = ROLLUPS[table];
  const onto = sums.map((c) => `${c} = t.${c} + excluded.${c}`).join(', ');
  const { rows } = await sql<{ folded: number }>`${sql.raw(`
    with ${changes(table, range)},
    old as (delete from ${ledger} l where l.${entity} in (select id from changed) returning l.*),
    counted as (
      insert into ${ledger} (${entity}, ${list([...key, ...sums])}) select ${entity}, ${list([...key, ...sums])} from now
    ),
    delta as (
      select ${list([...key, ...sums])} from now union all select ${list(key)}, ${negated(sums)} from old
    ),
    added as (
      insert into ${table} as t (${list(key)}, slot, ${list(sums)})
      select ${list(key, 'd.')}, 0, ${sums.map((c) => `sum(d.${c})`).join(', ')}
      from delta d join stores s on s.id = d.store_id
      group by ${list(key, 'd.')} having ${sums.map((c) => `sum(d.${c}) <> 0`).join(' or ')}
      order by ${list(key, 'd.')}
      on conflict (${list(key)}, slot) do update set ${onto}
    )
    select count(*)::int as folded from changed`)}`.execute(trx);
  return rows[0]!.folded;
}

/**
 * D52: folds what changed since the watermark into the day rows, in one repeatable-read
 * transaction: every transaction below its snapshot's xmin has ended, so what they changed is
 * all visible to it, and no later commit can fall below it; the watermark moves there. A
 * reader reads the same figures before and after. Two folds at once are harmless: the second
 * to move the watermark fails to serialize and folds nothing. Answers how many orders, claims
 * and resolutions it recounted.
 */
export async function foldRollups(db: Db): Promise<number> {
  try {
    return await transact(
      db,
      async (trx) => {
        const { rows } = await sql<{ lo: string; hi: string }>`
          select xid::text as lo, pg_snapshot_xmin(pg_current_snapshot())::text as hi from analytics_fold`.execute(trx);
        const { lo, hi } = rows[0]!;
        if (!XID.test(lo) || !XID.test(hi) || BigInt(hi) <= BigInt(lo)) return 0;
        await sql`update analytics_fold set xid = ${hi}::xid8`.execute(trx);
        const range: Range = (column) => `${column} >= '${lo}'::xid8 and ${column} < '${hi}'::xid8`;
        let folded = 0;
        for (const table of Object.keys(ROLLUPS) as Rollup[]) folded += await foldTable(trx, table, range);
        return folded;
      },
      { isolation: 'repeatable read' },
    );
  } catch (err) {
    if ((err as { code?: string }).code === '40001') return 0;
    throw err;
  }
}

/** The fold's watermark, for `rollupRows`. */
export async function rollupWatermark(db: Db): Promise<string> {
  const { rows } = await sql<{ xid: string }>`select xid::text as xid from analytics_fold`.execute(db);
  return rows[0]!.xid;
}

/** How many orders, claims and resolutions changed since the watermark, not yet folded. */
export async function unfoldedRollups(db: Db): Promise<number> {
  const since: Range = (column) => `${column} >= (select xid from analytics_fold)`;
  const counts = Object.values(ROLLUPS).map((r) => `(select count(distinct id) from (${r.changed(since)}) c)`);
  const { rows } = await sql<{ n: number }>`select (${sql.raw(counts.join(' + '))})::int as n`.execute(db);
  return rows[0]!.n;
}

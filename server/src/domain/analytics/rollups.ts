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

/** Where a changed thing is found: its id, the rows it is read from, and the `changed_xid` that marks it. */
type Source = readonly [id: string, from: string, xid: string];

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
    kept: [],
    ledger: 'analytics_order_counted',
    entity: 'order_id',
    changed: [
      ['id', 'orders', 'changed_xid'],
      ['order_id', 'protection_policies', 'changed_xid'],
    ],
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
    // The hours from filing to the first decision, for the median (migration 20261130500100).
    kept: ['decision_hours'],
    ledger: 'analytics_claim_counted',
    entity: 'claim_id',
    changed: [
      ['id', 'claims', 'changed_xid'],
      ['claim_id', 'claim_state_changes', 'changed_xid'],
    ],
    now: `
      select c.id as claim_id, c.store_id, ${DAY('c.created_at')} as day, 1 as claims,
        case when d.to_state is not null then 1 else 0 end as decided,
        case when d.to_state in ${APPROVING} then 1 else 0 end as approved,
        (extract(epoch from d.created_at - c.created_at) / 3600)::float8 as decision_hours
      from claims c left join lateral (
        select s.to_state, s.created_at from claim_state_changes s
        where s.claim_id = c.id and s.to_state in ${DECIDING} order by s.id limit 1
      ) d on true
      where c.id in (select id from changed) and c.deleted_at is null`,
  },
  analytics_paid_days: {
    key: ['store_id', 'day', 'resolution_type', 'currency'],
    sums: ['resolutions', 'amount'],
    kept: [],
    ledger: 'analytics_paid_counted',
    entity: 'resolution_id',
    changed: [
      ['id', 'claim_resolutions', 'changed_xid'],
      ['r.id', 'claims c join claim_resolutions r on r.claim_id = c.id', 'c.changed_xid'],
      [
        'r.id',
        'orders o join claims c on c.order_id = o.id join claim_resolutions r on r.claim_id = c.id',
        'o.changed_xid',
      ],
    ],
    now: `
      select r.id as resolution_id, c.store_id, ${DAY('r.created_at')} as day, r.resolution_type,
        coalesce(r.paid_currency, o.currency) as currency, 1 as resolutions, r.paid_value as amount
      from claim_resolutions r join claims c on c.id = r.claim_id and c.deleted_at is null
        join orders o on o.id = c.order_id
      where r.id in (select id from changed) and r.deleted_at is null and r.paid_value is not null`,
  },
} as const satisfies Record<string, { changed: readonly Source[]; [other: string]: unknown }>;
export type Rollup = keyof typeof ROLLUPS;

/** The ids of what changed within `range`, as SQL (duplicates possible). */
function changedIds(table: Rollup, range: Range): string {
  return ROLLUPS[table].changed
    .map(([id, from, xid]) => `select ${id} from ${from} where ${range(xid)}`)
    .join(' union ');
}

/**
 * The first `limit` ids after `after` (all from the first when null) of what changed within
 * `range`, as SQL: each source gives its first `limit` in id order, so the planner walks the
 * index of the ids when nearly everything changed (the first fold) and the `changed_xid`
 * index when little did. Ids compare in the database's collation, as their indexes do: the
 * order only has to be the same from one round to the next.
 */
function changedChunk(table: Rollup, range: Range, after: string | null, limit: number): string {
  const parts = ROLLUPS[table].changed.map(([id, source, xid]) => {
    const past = after === null ? '' : ` and ${id} > ${literal(after)}`;
    return `(select ${id} as id from ${source} where ${range(xid)}${past} order by ${id} limit ${limit})`;
  });
  return `select id from (${parts.join(' union ')}) c order by id limit ${limit}`;
}

/** A text value as an SQL string literal (an id this module read from the database). */
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

const list = (columns: readonly string[], prefix = '') => columns.map((c) => prefix + c).join(', ');
const negated = (sums: readonly string[]) => sums.map((c) => `-${c} as ${c}`).join(', ');

/** What changed within `range`, its figures now and its ledger's, as CTEs `changed`, `now`. */
function changes(table: Rollup, range: Range, chunk?: { after: string | null; limit: number }): string {
  const ids = chunk ? changedChunk(table, range, chunk.after, chunk.limit) : changedIds(table, range);
  return `changed as (select distinct id from (${ids}) c), now as (${ROLLUPS[table].now})`;
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

/**
 * A day table's ledger as a reader must see it: one row per counted thing (its key, sums and
 * kept columns), the ledger's row of what has not changed since the fold's watermark and the
 * figures now of what has, in one statement. For what cannot be added up by day (the median
 * of the claims' `decision_hours`).
 */
export function countedRows(table: Rollup, watermark: string): RawBuilder<unknown> {
  const { key, sums, kept, ledger, entity } = ROLLUPS[table];
  if (!XID.test(watermark)) throw new Error(`not a transaction id: ${watermark}`);
  const columns = list([entity, ...key, ...sums, ...kept]);
  return sql.raw(`(
    with ${changes(table, (column) => `${column} >= '${watermark}'::xid8`)}
    select ${columns} from ${ledger} where ${entity} not in (select id from changed)
    union all select ${columns} from now)`);
}

/** The things a round of a fold counts per day table, at most: a round is a short transaction. */
export const FOLD_CHUNK = 5_000;

/**
 * Folds one day table's changes within `range` into its day rows and ledger, the first
 * `chunk.limit` of them after `chunk.after`; answers how many things and the last one's id.
 */
async function foldTable(
  trx: Db,
  table: Rollup,
  range: Range,
  chunk: { after: string | null; limit: number },
): Promise<{ folded: number; last: string | null }> {
  const { key, sums, kept, ledger, entity } = ROLLUPS[table];
  const counted = list([entity, ...key, ...sums, ...kept]);
  const onto = sums.map((c) => `${c} = t.${c} + excluded.${c}`).join(', ');
  const { rows } = await sql<{ folded: number; last: string | null }>`${sql.raw(`
    with ${changes(table, range, chunk)},
    old as (delete from ${ledger} l where l.${entity} in (select id from changed) returning l.*),
    counted as (insert into ${ledger} (${counted}) select ${counted} from now),
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
    select count(*)::int as folded, (select id from changed order by id desc limit 1) as last from changed`)}`.execute(
    trx,
  );
  return rows[0]!;
}

/** Where a fold in rounds stands: the last id counted per day table, null once the table is done. */
type FoldAfter = Partial<Record<Rollup, string | null>>;

/**
 * One round of a fold, in one repeatable-read transaction: the fold's row is locked first, so
 * rounds run one at a time, and a round whose snapshot is older than another's commit fails
 * to serialize (and folds nothing) rather than count what it cannot see. A fold folds up to
 * the xmin of its first round's snapshot: every transaction below it has ended, so what they
 * changed is all visible to every round, and whatever changes a thing after that has a
 * transaction id above it, so a thing counted in an early round and changed since is counted
 * again by the next fold. Each round counts up to `limit` things per day table, in id order,
 * and moves the watermark once every table is done.
 */
async function foldRound(trx: Db, limit: number): Promise<{ folded: number; done: boolean }> {
  const { rows } = await sql<{ lo: string; hi: string; after: FoldAfter | null }>`
    select xid::text as lo, coalesce(fold_to, pg_snapshot_xmin(pg_current_snapshot()))::text as hi,
      fold_after as after
    from analytics_fold for update`.execute(trx);
  const { lo, hi, after } = rows[0]!;
  if (!XID.test(lo) || !XID.test(hi) || BigInt(hi) <= BigInt(lo)) return { folded: 0, done: true };
  const range: Range = (column) => `${column} >= '${lo}'::xid8 and ${column} < '${hi}'::xid8`;
  const next: FoldAfter = { ...after };
  let folded = 0;
  for (const table of Object.keys(ROLLUPS) as Rollup[]) {
    if (next[table] === null) continue;
    const chunk = await foldTable(trx, table, range, { after: next[table] ?? null, limit });
    folded += chunk.folded;
    next[table] = chunk.folded < limit ? null : chunk.last;
  }
  const done = (Object.keys(ROLLUPS) as Rollup[]).every((table) => next[table] === null);
  await (done
    ? sql`update analytics_fold set xid = ${hi}::xid8, fold_to = null, fold_after = null`
    : sql`update analytics_fold set fold_to = ${hi}::xid8, fold_after = ${JSON.stringify(next)}::jsonb`
  ).execute(trx);
  return { folded, done };
}

/**
 * D52: folds what changed since the watermark into the day rows and moves the watermark, in
 * rounds of a short transaction each (`foldRound`), for up to `budgetMs` (at least one round);
 * a fold not done by then goes on at the next call, where it stopped. A reader reads the same
 * figures before, between and after rounds: until the watermark moves it counts what changed
 * since the old one itself. Two folds at once are harmless: a round that loses the race folds
 * nothing. Answers how many orders, claims and resolutions it recounted.
 */
export async function foldRollups(
  db: Db,
  { limit = FOLD_CHUNK, budgetMs = 1_000 }: { limit?: number; budgetMs?: number } = {},
): Promise<number> {
  const started = Date.now();
  let folded = 0;
  try {
    for (;;) {
      const round = await transact(db, (trx) => foldRound(trx, limit), { isolation: 'repeatable read' });
      folded += round.folded;
      if (round.done || Date.now() - started >= budgetMs) return folded;
    }
  } catch (err) {
    if ((err as { code?: string }).code === '40001') return folded;
    throw err;
  }
}

/** Folds until the watermark has moved past everything changed before the call (the first fold of a large store, benches). */
export async function foldRollupsFully(db: Db, limit = FOLD_CHUNK): Promise<number> {
  let folded = 0;
  for (;;) {
    folded += await foldRollups(db, { limit, budgetMs: Number.POSITIVE_INFINITY });
    if (!(await foldInProgress(db))) return folded;
  }
}

/** Whether a fold stopped between its rounds, to go on at the next call. */
export async function foldInProgress(db: Db): Promise<boolean> {
  const { rows } = await sql<{ folding: boolean }>`select fold_to is not null as folding from analytics_fold`.execute(
    db,
  );
  return rows[0]!.folding;
}

/** The fold's watermark, for `rollupRows`. */
export async function rollupWatermark(db: Db): Promise<string> {
  const { rows } = await sql<{ xid: string }>`select xid::text as xid from analytics_fold`.execute(db);
  return rows[0]!.xid;
}

/** How many orders, claims and resolutions changed since the watermark, not yet folded. */
export async function unfoldedRollups(db: Db): Promise<number> {
  const since: Range = (column) => `${column} >= (select xid from analytics_fold)`;
  const counts = (Object.keys(ROLLUPS) as Rollup[]).map(
    (table) => `(select count(distinct id) from (${changedIds(table, since)}) c)`,
  );
  const { rows } = await sql<{ n: number }>`select (${sql.raw(counts.join(' + '))})::int as n`.execute(db);
  return rows[0]!.n;
}

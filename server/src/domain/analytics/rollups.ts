import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { changedIds, changes, foldFunction, list, negated, type Range, ROLLUPS, type Rollup } from './definition';

export type { Rollup } from './definition';

/**
 * D52's day rollups (defined in definition.ts), counted after the writes (migrations
 * 20261129000000, 20261130600000): a write records only which transaction changed a counted
 * row (`changed_xid`). A fold recounts what changed below
 * a watermark every transaction has passed, from scratch, and adds the difference from its
 * ledger (what it counted of each order, claim and resolution before) to the day rows; a
 * reader adds, for what changed since the watermark, its figures now less its ledger's.
 */

const XID = /^\d+$/;

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
 * with the database's `<table>_fold()` (definition.ts, written into a migration), and moves
 * the watermark once every table is done.
 */
async function foldRound(trx: Db, limit: number): Promise<{ folded: number; done: boolean }> {
  const { rows } = await sql<{ lo: string; hi: string; after: FoldAfter | null }>`
    select xid::text as lo, coalesce(fold_to, pg_snapshot_xmin(pg_current_snapshot()))::text as hi,
      fold_after as after
    from analytics_fold for update`.execute(trx);
  const { lo, hi, after } = rows[0]!;
  if (!XID.test(lo) || !XID.test(hi) || BigInt(hi) <= BigInt(lo)) return { folded: 0, done: true };
  const next: FoldAfter = { ...after };
  let folded = 0;
  for (const table of Object.keys(ROLLUPS) as Rollup[]) {
    if (next[table] === null) continue;
    const fold = sql.id(foldFunction(table));
    const { rows } = await sql<{ folded: number; last: string | null }>`
      select folded, last from ${fold}(${lo}::xid8, ${hi}::xid8, ${next[table] ?? null}::text, ${limit}::integer)`.execute(
      trx,
    );
    const chunk = rows[0]!;
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

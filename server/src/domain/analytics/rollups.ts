import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { changes, foldFunction, list, negated, type Range, ROLLUPS, type Rollup } from './definition';

export type { Rollup } from './definition';

/**
 * D52's day rollups (defined in definition.ts), counted after the writes (migrations
 * 20261129000000, 20261130200000): a write records only which transaction changed a counted
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
 * D52: folds what changed since the watermark into the day rows, in one repeatable-read
 * transaction: every transaction below its snapshot's xmin has ended, so what they changed is
 * all visible to it, and no later commit can fall below it; the watermark moves there. A
 * reader reads the same figures before and after. The folding itself is done by the
 * database's `<table>_fold()` functions (definition.ts, written into a migration). Two folds at once are
 * harmless: the second to move the watermark fails to serialize and folds nothing. Answers
 * how many orders, claims and resolutions it recounted.
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
        let folded = 0;
        for (const table of Object.keys(ROLLUPS) as Rollup[]) {
          const fold = sql.id(foldFunction(table));
          const { rows } = await sql<{ n: number }>`select ${fold}(${lo}::xid8, ${hi}::xid8) as n`.execute(trx);
          folded += rows[0]!.n;
        }
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

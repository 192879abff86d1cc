import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';

/** Most pending rows of one table that one fold statement moves. */
const FOLD_BATCH = 5_000;

/** Each day table (D52): the columns a day row is kept by, and those it adds up. */
export const ROLLUPS = {
  analytics_order_days: { key: ['store_id', 'day', 'currency'], sums: ['orders', 'protected_orders', 'premiums'] },
  analytics_claim_days: { key: ['store_id', 'day'], sums: ['claims', 'decided', 'approved'] },
  analytics_paid_days: { key: ['store_id', 'day', 'resolution_type', 'currency'], sums: ['resolutions', 'amount'] },
} as const;
export type Rollup = keyof typeof ROLLUPS;

const list = (columns: readonly string[], prefix = '') => sql.raw(columns.map((c) => prefix + c).join(', '));

/**
 * A day table's rows as a reader must see them: its day rows and the deltas still pending
 * (migration 20261127010000), so a figure never depends on the fold having run.
 */
export function rollupRows(table: Rollup): RawBuilder<unknown> {
  const columns = [...ROLLUPS[table].key, ...ROLLUPS[table].sums];
  return sql`(select ${list(columns)} from ${sql.table(table)}
    union all select ${list(columns)} from ${sql.table(`${table}_pending`)})`;
}

/**
 * D52: the deltas the rollup triggers appended to the pending tables, added into slot 0 of
 * their day and deleted, in one statement per table and batch; a reader, which adds both,
 * reads the same figures before and after. Two folds at once are harmless: a pending row is
 * deleted, and counted, by one of them. Rows of a store deleted meanwhile are dropped.
 * Answers how many pending rows were folded.
 */
export async function foldRollups(db: Db, batch = FOLD_BATCH): Promise<number> {
  let folded = 0;
  for (const [table, { key, sums }] of Object.entries(ROLLUPS)) {
    const days = sql.table(table);
    const pending = sql.table(`${table}_pending`);
    const onto = sql.raw(sums.map((c) => `${c} = t.${c} + excluded.${c}`).join(', '));
    for (;;) {
      const { rows } = await sql<{ moved: number }>`
        with moved as (
          delete from ${pending} where ctid = any (array(select ctid from ${pending} limit ${batch}))
          returning *
        ), added as (
          insert into ${days} as t (${list(key)}, slot, ${list(sums)})
          select ${list(key, 'm.')}, 0, ${sql.raw(sums.map((c) => `sum(m.${c})`).join(', '))}
          from moved m join stores s on s.id = m.store_id
          group by ${list(key, 'm.')} order by ${list(key, 'm.')}
          on conflict (${list(key)}, slot) do update set ${onto}
        )
        select count(*)::int as moved from moved`.execute(db);
      const moved = rows[0]?.moved ?? 0;
      folded += moved;
      // Not `moved < batch`: rows another fold had taken come back as none moved here, while
      // rows behind them may still be pending. Only a statement that finds nothing ends it.
      if (moved === 0) break;
    }
  }
  return folded;
}

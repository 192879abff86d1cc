import { type Kysely, sql } from 'kysely';
import { rollupSql, rollupTriggers, type Sink, SLOT_ROW, TABLES } from './20261127000000-analytics-rollups';

/**
 * D52 rollups without a shared row held to commit. The triggers of 20261127000000 upserted
 * each statement's delta into the backend's slot row of the day (one of eight) and held that
 * row locked until the writer's transaction ended: on a busy store day, order writes queued
 * behind each other's commits, and the few hot rows bloated with dead versions (`pnpm bench
 * writes`: a plain upsert of an order ran at 0.4 of its rate without the triggers).
 *
 * Now a trigger appends its delta to a pending table: no index, and no lock any other writer
 * waits on (its foreign key shares the store row's lock the write already holds). The delivering processes fold the pending rows into the day rows
 * (slot 0) every second, in short transactions of their own (`foldRollups`). A reader adds
 * the pending rows to the day rows, so what it reads never depends on the fold having run; a
 * rolled-back write's pending row never existed.
 */
const PENDING: Sink = { suffix: '_pending', slotColumn: '', slotValue: '', onConflict: () => '' };

export async function up(db: Kysely<any>): Promise<void> {
  const { refuseDelete, storeOf } = rollupSql(PENDING);
  const ddl = [
    `create table analytics_order_days_pending (
      store_id text not null references stores (id) on delete cascade, day date not null, currency char(3) not null,
      orders bigint not null, protected_orders bigint not null, premiums numeric not null
    );
    create table analytics_claim_days_pending (
      store_id text not null references stores (id) on delete cascade, day date not null, claims bigint not null, decided bigint not null, approved bigint not null
    );
    create table analytics_paid_days_pending (
      store_id text not null references stores (id) on delete cascade, day date not null, resolution_type text not null, currency char(3) not null,
      resolutions bigint not null, amount numeric not null
    );`,
    rollupTriggers(PENDING, true),
    ...TABLES.map((t) => refuseDelete(t, storeOf[t]!, true)),
  ];
  await sql.raw(ddl.join('\n')).execute(db);
}

/** Each day table's key (without its slot) and sums, to fold what is pending when going down. */
const FOLDED: Record<string, [string, string[]]> = {
  analytics_order_days: ['store_id, day, currency', ['orders', 'protected_orders', 'premiums']],
  analytics_claim_days: ['store_id, day', ['claims', 'decided', 'approved']],
  analytics_paid_days: ['store_id, day, resolution_type, currency', ['resolutions', 'amount']],
};

export async function down(db: Kysely<any>): Promise<void> {
  const { refuseDelete, storeOf } = rollupSql(SLOT_ROW);
  const ddl = [rollupTriggers(SLOT_ROW, true), ...TABLES.map((t) => refuseDelete(t, storeOf[t]!, true))];
  for (const [table, [key, sums]] of Object.entries(FOLDED)) {
    const pKey = key.replace(/(\w+)/g, 'p.$1');
    ddl.push(`
      insert into ${table} as t (${key}, slot, ${sums.join(', ')})
      select ${pKey}, 0, ${sums.map((c) => `sum(p.${c})`).join(', ')}
      from ${table}_pending p join stores s on s.id = p.store_id group by ${pKey}
      on conflict (${key}, slot) do update set ${sums.map((c) => `${c} = t.${c} + excluded.${c}`).join(', ')};
      drop table ${table}_pending;`);
  }
  await sql.raw(ddl.join('\n')).execute(db);
}

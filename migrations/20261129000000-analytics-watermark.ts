import { type Kysely, sql } from 'kysely';
import { rollupSql, rollupTriggers, type Sink, SLOT_ROW, TABLES } from './20261127000000-analytics-rollups';

/**
 * D52 rollups counted after the write, not in it. The statement triggers of 20261127000000
 * (and their pending tables, 20261127010000) ran a join over transition tables in every
 * order, policy and claim write: the order write ran at a fifth of its rate without them.
 *
 * Now a write only records which transaction last changed a counted row: `changed_xid`, the
 * writer's transaction id, set by the column's default on insert and by a row trigger on an
 * update that changes a column the rollups read (its `when` is checked without calling
 * the function, so a write that changes none of them, the usual re-sent order, runs no
 * function). The delivering processes fold what changed (server/src/domain/analytics/rollups.ts):
 * every transaction below the fold's snapshot xmin has ended, so the rows changed by
 * transactions in [last watermark, xmin) are all visible to it, and no transaction that
 * commits later can have an id below xmin. The fold recounts those rows' orders, claims and
 * resolutions from scratch, adds the difference from what it counted of them before (the
 * `_counted` ledgers, one row per counted thing) to the day rows, and moves the watermark.
 * A reader adds, for what changed since the watermark, its figures now less its ledger's.
 *
 * A row that moves to another parent (a policy to another order, a state change to another
 * claim) marks its old parent changed too, so the old parent is recounted.
 *
 * Every row there now gets `changed_xid` 0 and the ledgers and day rows start empty: the
 * first fold counts everything once (until then readers count it themselves).
 */

/** What marks a counted row changed: the columns the rollups read of it. */
const COUNTED: Record<string, string[]> = {
  orders: ['store_id', 'source_created_at', 'currency', 'deleted_at'],
  protection_policies: ['order_id', 'premium_paid', 'premium_currency', 'removed_at', 'deleted_at'],
  claims: ['store_id', 'order_id', 'created_at', 'deleted_at'],
  claim_resolutions: ['claim_id', 'resolution_type', 'paid_value', 'paid_currency', 'created_at', 'deleted_at'],
  claim_state_changes: ['id', 'claim_id', 'to_state'],
};

/** A row of these that moves to another parent marks the old parent changed. */
const PARENT: Record<string, [column: string, table: string]> = {
  protection_policies: ['order_id', 'orders'],
  claim_state_changes: ['claim_id', 'claims'],
};

const DAY_TABLES = ['analytics_order_days', 'analytics_claim_days', 'analytics_paid_days'];

/** A hard delete is refused while the store has rollups, as before; the pending tables are gone. */
const refuseDelete = (table: string, storeOf: string) => `
  create or replace function analytics_${table}_delete() returns trigger language plpgsql as $$
  begin
    if exists (
      select 1 from old_rows x ${storeOf}
      where ${DAY_TABLES.map((t) => `exists (select 1 from ${t} a where a.store_id = s.id)`).join(' or ')}
    ) then
      raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', '${table}';
    end if;
    return null;
  end $$;`;

export async function up(db: Kysely<any>): Promise<void> {
  const ddl: string[] = [];
  for (const t of TABLES)
    for (const event of ['insert', 'update'])
      ddl.push(`drop trigger analytics_${t}_${event} on ${t}; drop function analytics_${t}_${event}();`);
  ddl.push(`
    create function analytics_changed() returns trigger language plpgsql as $$
    begin
      new.changed_xid := pg_current_xact_id();
      return new;
    end $$;`);
  for (const [table, columns] of Object.entries(COUNTED)) {
    const row = (r: string) => `(${columns.map((c) => `${r}.${c}`).join(', ')})`;
    ddl.push(`
      alter table ${table} add column changed_xid xid8 not null default '0';
      alter table ${table} alter column changed_xid set default pg_current_xact_id();
      create index ${table}_changed_idx on ${table} (changed_xid);
      create trigger analytics_changed before update on ${table} for each row
        when (${row('old')} is distinct from ${row('new')}) execute function analytics_changed();`);
  }
  for (const [table, [column, parent]] of Object.entries(PARENT))
    ddl.push(`
      create function analytics_${table}_moved() returns trigger language plpgsql as $$
      begin
        update ${parent} set changed_xid = pg_current_xact_id() where id = old.${column};
        return new;
      end $$;
      create trigger analytics_moved before update on ${table} for each row
        when (old.${column} is distinct from new.${column}) execute function analytics_${table}_moved();`);
  const { storeOf } = rollupSql(SLOT_ROW);
  for (const t of TABLES) ddl.push(refuseDelete(t, storeOf[t]!));
  ddl.push(`
    drop table analytics_order_days_pending, analytics_claim_days_pending, analytics_paid_days_pending;
    truncate analytics_order_days, analytics_claim_days, analytics_paid_days;
    create table analytics_fold (one boolean primary key default true check (one), xid xid8 not null);
    insert into analytics_fold (xid) values ('0');
    create table analytics_order_counted (
      order_id text not null references orders (id) on delete cascade,
      currency char(3) not null,
      store_id text not null, day date not null,
      orders bigint not null, protected_orders bigint not null, premiums numeric not null,
      primary key (order_id, currency)
    );
    create table analytics_claim_counted (
      claim_id text primary key references claims (id) on delete cascade,
      store_id text not null, day date not null,
      claims bigint not null, decided bigint not null, approved bigint not null
    );
    create table analytics_paid_counted (
      resolution_id text primary key references claim_resolutions (id) on delete cascade,
      store_id text not null, day date not null, resolution_type text not null, currency char(3) not null,
      resolutions bigint not null, amount numeric not null
    );`);
  await sql.raw(ddl.join('\n')).execute(db);
}

const PENDING: Sink = { suffix: '_pending', slotColumn: '', slotValue: '', onConflict: () => '' };

export async function down(db: Kysely<any>): Promise<void> {
  const ddl = ['drop table analytics_order_counted, analytics_claim_counted, analytics_paid_counted, analytics_fold;'];
  for (const table of Object.keys(COUNTED))
    ddl.push(`drop trigger analytics_changed on ${table}; alter table ${table} drop column changed_xid;`);
  for (const table of Object.keys(PARENT))
    ddl.push(`drop trigger analytics_moved on ${table}; drop function analytics_${table}_moved();`);
  ddl.push('drop function analytics_changed();');
  ddl.push(`
    create table analytics_order_days_pending (
      store_id text not null references stores (id) on delete cascade, day date not null, currency char(3) not null,
      orders bigint not null, protected_orders bigint not null, premiums numeric not null
    );
    create table analytics_claim_days_pending (
      store_id text not null references stores (id) on delete cascade, day date not null, claims bigint not null, decided bigint not null, approved bigint not null
    );
    create table analytics_paid_days_pending (
      store_id text not null references stores (id) on delete cascade, day date not null, resolution_type text not null, currency char(3) not null,
      resolutions bigint not null, amount numeric not null
    );
    truncate analytics_order_days, analytics_claim_days, analytics_paid_days;`);
  const { storeOf, orderDelta, applyClaimDays, claimDays, resolutionDelta } = rollupSql(SLOT_ROW);
  ddl.push(rollupTriggers(PENDING), ...TABLES.map((t) => rollupSql(PENDING).refuseDelete(t, storeOf[t]!, true)));
  ddl.push(
    orderDelta('(select 1 as sign, * from orders)'),
    applyClaimDays(claimDays('(select 1 as sign, * from claims)', 'claim_state_changes')),
    resolutionDelta('(select 1 as sign, * from claim_resolutions)'),
  );
  await sql.raw(ddl.join('\n')).execute(db);
}

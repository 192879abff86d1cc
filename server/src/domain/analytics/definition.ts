import { CLAIM_QUEUES, type TClaimQueue } from '@protection-service/contract';

/**
 * D52's rollups, defined once: the day tables, the columns a day row is kept by and those it
 * adds up, what a write marks changed, and the claim states that count as a decision. The
 * reader (`rollups.ts`) builds its queries from this at run time; the database objects it
 * implies (the folds, the change-marking triggers, the hard-delete guards and `claim_queue()`)
 * are emitted by `rollupSql()` and written as text into a migration (`pnpm rollups:migration
 * <name>`), never imported by one. `server/test/analytics/rollup-definition.test.ts` fails
 * while the newest migration carrying `ROLLUP_SQL` differs from what this emits: a change here
 * is one edit and a new migration.
 *
 * Tables and columns themselves (adding a sum, a key, a counted table's `changed_xid`) are
 * altered by hand in that migration, before its generated text.
 */

/** An SQL list of string literals: `('A', 'B')`. */
const inList = (values: readonly string[]) => `(${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ')})`;

/**
 * D22, D51: a first decision moves a claim into the approved or the declined queue; the
 * approved queue's states approve.
 */
export const APPROVAL_STATES: readonly string[] = CLAIM_QUEUES.approved;
export const DECISION_STATES: readonly string[] = [...CLAIM_QUEUES.approved, ...CLAIM_QUEUES.declined];
/** The same, as SQL lists. */
export const APPROVING = inList(APPROVAL_STATES);
export const DECIDING = inList(DECISION_STATES);

const DAY = (at: string) => `(${at} at time zone 'UTC')::date`;

/** Which `changed_xid`s a statement reads: `column` within them, as SQL. */
export type Range = (column: string) => string;

/** Where a changed thing is found: its id, the rows it is read from, and the `changed_xid` that marks it. */
type Source = readonly [id: string, from: string, xid: string];

/**
 * Each day table: the columns a day row is kept by and those it adds up; its ledger, one row
 * per counted thing (`entity`) and key, with what it keeps of it beside the sums (`kept`); which things changed within a range (an order by its
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
    // The hours from filing to the first decision, for the median, which no day row can add up.
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

/**
 * The counted tables: the columns the rollups read of each (a change to one marks the row
 * changed, `changed_xid`), and from a deleted row `x` to its store `s`.
 */
export const COUNTED: Record<string, { columns: readonly string[]; storeOf: string }> = {
  orders: {
    columns: ['store_id', 'source_created_at', 'currency', 'deleted_at'],
    storeOf: 'join stores s on s.id = x.store_id',
  },
  protection_policies: {
    columns: ['order_id', 'premium_paid', 'premium_currency', 'removed_at', 'deleted_at'],
    storeOf: 'join stores s on s.id = x.store_id',
  },
  claims: {
    columns: ['store_id', 'order_id', 'created_at', 'deleted_at'],
    storeOf: 'join stores s on s.id = x.store_id',
  },
  claim_resolutions: {
    columns: ['claim_id', 'resolution_type', 'paid_value', 'paid_currency', 'created_at', 'deleted_at'],
    storeOf: 'join claims c on c.id = x.claim_id join stores s on s.id = c.store_id',
  },
  claim_state_changes: {
    columns: ['id', 'claim_id', 'to_state', 'created_at'],
    storeOf: 'join claims c on c.id = x.claim_id join stores s on s.id = c.store_id',
  },
};

/** A counted row of these that moves to another parent marks the old parent changed too. */
export const PARENT: Record<string, [column: string, table: string]> = {
  protection_policies: ['order_id', 'orders'],
  claim_state_changes: ['claim_id', 'claims'],
};

export const list = (columns: readonly string[], prefix = '') => columns.map((c) => prefix + c).join(', ');
export const negated = (sums: readonly string[]) => sums.map((c) => `-${c} as ${c}`).join(', ');

/** The ids of what changed within `range`, as SQL (duplicates possible). */
export function changedIds(table: Rollup, range: Range): string {
  return ROLLUPS[table].changed
    .map(([id, from, xid]) => `select ${id} from ${from} where ${range(xid)}`)
    .join(' union ');
}

/**
 * A round's share of what changed within `range`, as SQL: the first `limit` ids after `after`
 * (SQL expressions both). Each source gives its first `limit` in id order, so the planner walks
 * the index of the ids when nearly everything changed (the first fold) and the `changed_xid`
 * index when little did. Ids compare in the database's collation, as their indexes do: the
 * order only has to be the same from one round to the next.
 */
function changedChunk(table: Rollup, range: Range, after: string, limit: string): string {
  const parts = ROLLUPS[table].changed.map(
    ([id, source, xid]) =>
      `(select ${id} as id from ${source} where ${range(xid)} and ${id} > ${after} order by ${id} limit ${limit})`,
  );
  return `select id from (${parts.join(' union ')}) c order by id limit ${limit}`;
}

/**
 * What changed within `range` (of it, a round's share `chunk` if given) and its figures now,
 * as CTEs `changed` and `now`.
 */
export function changes(table: Rollup, range: Range, chunk?: { after: string; limit: string }): string {
  const ids = chunk ? changedChunk(table, range, chunk.after, chunk.limit) : changedIds(table, range);
  return `changed as (select distinct id from (${ids}) c), now as (${ROLLUPS[table].now})`;
}

/** The database function that folds a day table's changes (`foldSql`). */
export const foldFunction = (table: Rollup) => `${table}_fold`;

/**
 * `<table>_fold(since, before, after, lim)`: one round's share of a fold, in the caller's
 * transaction: folds the first `lim` of one day table's things changed within [since, before)
 * whose id sorts after `after` (from the first when null) into its day rows and its ledger;
 * answers how many it recounted and the last one's id, where the next round goes on. One
 * statement run by `execute ... using`, so that it is planned for each round's values, as it
 * was when the service sent it as text: as an SQL function's statement, planned once for any
 * values, the first fold of 100,000 orders and 10,000 claims (`pnpm bench analytics`) took
 * 4.7 s with a longest round of 2.0 s, against 2.3-2.9 s and 0.25-0.41 s so, on a loaded
 * machine.
 */
function foldSql(table: Rollup): string {
  const { key, sums, kept, ledger, entity } = ROLLUPS[table];
  const range: Range = (column) => `${column} >= $1 and ${column} < $2`;
  const all = list([...key, ...sums]);
  const counted = list([entity, ...key, ...sums, ...kept]);
  return `
create or replace function ${foldFunction(table)}(since_xid xid8, before_xid xid8, after_id text, lim integer)
returns table (folded integer, last text)
language plpgsql as $$
begin
  return query execute $fold$
  with ${changes(table, range, { after: "coalesce($3, '')", limit: '$4' })},
  old as (delete from ${ledger} l where l.${entity} in (select id from changed) returning l.*),
  counted as (insert into ${ledger} (${counted}) select ${counted} from now),
  delta as (select ${all} from now union all select ${list(key)}, ${negated(sums)} from old),
  added as (
    insert into ${table} as t (${all})
    select ${list(key, 'd.')}, ${sums.map((c) => `sum(d.${c})`).join(', ')}
    from delta d join stores s on s.id = d.store_id
    group by ${list(key, 'd.')} having ${sums.map((c) => `sum(d.${c}) <> 0`).join(' or ')}
    order by ${list(key, 'd.')}
    on conflict (${list(key)}) do update set ${sums.map((c) => `${c} = t.${c} + excluded.${c}`).join(', ')}
  )
  select count(*)::integer, (select id from changed order by id desc limit 1) from changed
  $fold$ using since_xid, before_xid, after_id, lim;
end $$;`;
}

/**
 * The triggers on the counted tables: an update that changes a counted column sets
 * `changed_xid` (checked in the trigger's `when`, so a write that changes none runs no
 * function); one that moves a row to another parent marks the old parent; a hard delete is
 * refused while the store has rollups (rows are soft-deleted, `deleted_at`).
 */
function triggersSql(): string {
  const ddl = [
    `
create or replace function analytics_changed() returns trigger language plpgsql as $$
begin
  new.changed_xid := pg_current_xact_id();
  return new;
end $$;`,
  ];
  const hasRollups = Object.keys(ROLLUPS)
    .map((t) => `exists (select 1 from ${t} a where a.store_id = s.id)`)
    .join(' or ');
  for (const [table, { columns, storeOf }] of Object.entries(COUNTED)) {
    const row = (r: string) => `(${list(columns, `${r}.`)})`;
    ddl.push(`
create or replace trigger analytics_changed before update on ${table} for each row
  when (${row('old')} is distinct from ${row('new')}) execute function analytics_changed();
create or replace function analytics_${table}_delete() returns trigger language plpgsql as $$
begin
  if exists (select 1 from old_rows x ${storeOf} where ${hasRollups}) then
    raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', '${table}';
  end if;
  return null;
end $$;
create or replace trigger analytics_${table}_delete after delete on ${table}
  referencing old table as old_rows for each statement execute function analytics_${table}_delete();`);
  }
  for (const [table, [column, parent]] of Object.entries(PARENT))
    ddl.push(`
create or replace function analytics_${table}_moved() returns trigger language plpgsql as $$
begin
  update ${parent} set changed_xid = pg_current_xact_id() where id = old.${column};
  return new;
end $$;
create or replace trigger analytics_moved before update on ${table} for each row
  when (old.${column} is distinct from new.${column}) execute function analytics_${table}_moved();`);
  return ddl.join('');
}

/**
 * `claim_queue(state)`, the claim queue's tab of a state (D51), from `CLAIM_QUEUES`; the page
 * index built on it is rebuilt, as a changed immutable function leaves it stale.
 */
function claimQueueSql(): string {
  const tabs = (Object.keys(CLAIM_QUEUES) as TClaimQueue[]).map(
    (q) => `\n  when state in ${inList(CLAIM_QUEUES[q])} then '${q}'`,
  );
  return `
create or replace function claim_queue(state text) returns text
language sql immutable parallel safe
return case${tabs.join('')}
end;
reindex index claims_store_queue_page_idx;`;
}

/** Every database object the definition implies, as one SQL text that replaces them all. */
export function rollupSql(): string {
  const folds = (Object.keys(ROLLUPS) as Rollup[]).map(foldSql).join('');
  return `${claimQueueSql()}\n${triggersSql()}\n${folds}\n`;
}

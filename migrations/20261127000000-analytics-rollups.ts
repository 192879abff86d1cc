import { type Kysely, sql } from 'kysely';

/**
 * D52 rollups: a store's summary read every order of its period (10x a count(*) of them on
 * 100,000 orders). These tables hold, per store and UTC day, the counts and exact numeric sums
 * the summary adds up, so it reads a few hundred rows instead. A store is live or a test store
 * for life (D45), so the store id keeps live and test figures apart.
 *
 * They are written by statement-level triggers on the tables they count, in the transaction
 * of the change: no writer can forget them, a rolled-back change leaves them as they were,
 * and a bulk write adds one upsert per statement, not one per row. Each trigger adds the
 * contribution of the new rows and takes away that of the old ones (a "delta"), so concurrent
 * writers never recount each other's uncommitted rows. A backend writes its own `slot` of a
 * day (its process id mod 8): concurrent writers of one store and day do not queue on one row.
 *
 * An update that moves an order or a claim (its day, currency, store or deletion) recounts it
 * with its policies, state changes and resolutions as they are after the statement, so one
 * statement must not both move an order or claim and change those (no writer does; a
 * data-modifying CTE that inserts an order with its policy is fine).
 *
 * Orders, claims and what they count are only ever soft-deleted (`deleted_at`); a hard delete
 * would take rows a trigger still needs to know what to subtract, so it is refused while the
 * store has rollups: when the store goes they go with it (the foreign key), and a test-store
 * reset (D45) deletes them first.
 */

const SLOT = '(pg_backend_pid() % 8)::smallint';
const DAY = (at: string) => `(${at} at time zone 'UTC')::date`;
const DECIDING = `('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED')`;
const APPROVING = `('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND')`;

/**
 * Where a trigger's delta goes. Here: added to the backend's own slot row of the day, an
 * upsert. Migration 20261127010000 appends it as a row of its own to a pending table (the day
 * table's name + `suffix`) instead, which the delivering processes fold into the day rows.
 */
export interface Sink {
  suffix: string;
  slotColumn: string;
  slotValue: string;
  onConflict: (clause: string) => string;
}
export const SLOT_ROW: Sink = {
  suffix: '',
  slotColumn: 'slot, ',
  slotValue: `${SLOT}, `,
  onConflict: (clause) => clause,
};

/** The day tables; with a sink's suffix, where its deltas wait. */
const DAY_TABLES = ['analytics_order_days', 'analytics_claim_days', 'analytics_paid_days'];

/** The rollups' SQL, writing to `sink`. */
export function rollupSql(sink: Sink) {
  /** Adds a delta (store_id, day, currency, orders, protected_orders, premiums) to the order days. */
  const applyOrderDays = (delta: string) => `
    insert into analytics_order_days${sink.suffix} as t (store_id, day, currency, ${sink.slotColumn}orders, protected_orders, premiums)
    select d.store_id, d.day, d.currency, ${sink.slotValue}sum(d.orders), sum(d.protected_orders), sum(d.premiums)
    from (${delta}) d join stores s on s.id = d.store_id
    group by 1, 2, 3 having sum(d.orders) <> 0 or sum(d.protected_orders) <> 0 or sum(d.premiums) <> 0
    ${sink.onConflict(`order by 1, 2, 3
    on conflict (store_id, day, currency, slot) do update set orders = t.orders + excluded.orders,
      protected_orders = t.protected_orders + excluded.protected_orders, premiums = t.premiums + excluded.premiums`)};`;

  /** Adds a delta (store_id, day, claims, decided, approved) to the claim days. */
  const applyClaimDays = (delta: string) => `
    insert into analytics_claim_days${sink.suffix} as t (store_id, day, ${sink.slotColumn}claims, decided, approved)
    select d.store_id, d.day, ${sink.slotValue}sum(d.claims), sum(d.decided), sum(d.approved)
    from (${delta}) d join stores s on s.id = d.store_id
    group by 1, 2 having sum(d.claims) <> 0 or sum(d.decided) <> 0 or sum(d.approved) <> 0
    ${sink.onConflict(`order by 1, 2
    on conflict (store_id, day, slot) do update set claims = t.claims + excluded.claims,
      decided = t.decided + excluded.decided, approved = t.approved + excluded.approved`)};`;

  /** Adds a delta (store_id, day, resolution_type, currency, resolutions, amount) to the paid days. */
  const applyPaidDays = (delta: string) => `
    insert into analytics_paid_days${sink.suffix} as t (store_id, day, resolution_type, currency, ${sink.slotColumn}resolutions, amount)
    select d.store_id, d.day, d.resolution_type, d.currency, ${sink.slotValue}sum(d.resolutions), sum(d.amount)
    from (${delta}) d join stores s on s.id = d.store_id
    group by 1, 2, 3, 4 having sum(d.resolutions) <> 0 or sum(d.amount) <> 0
    ${sink.onConflict(`order by 1, 2, 3, 4
    on conflict (store_id, day, resolution_type, currency, slot) do update
      set resolutions = t.resolutions + excluded.resolutions, amount = t.amount + excluded.amount`)};`;

  /**
   * What rows `x` (a table's rows with a `sign`, +1 or -1) add to the rollups, given the other
   * tables as they are: a statement changes one table, so the others are the same before and
   * after it.
   */
  const orderDelta = (x: string, dependents = true) =>
    applyOrderDays(`
      select o.store_id, ${DAY('o.source_created_at')} as day, o.currency, o.sign as orders,
        0 as protected_orders, 0::numeric as premiums
      from ${x} o where o.deleted_at is null
      union all
      select o.store_id, ${DAY('o.source_created_at')}, coalesce(pp.premium_currency, o.currency), 0, o.sign,
        o.sign * pp.premium_paid
      from ${x} o join protection_policies pp
        on pp.order_id = o.id and pp.removed_at is null and pp.deleted_at is null
      where o.deleted_at is null and ${dependents}`);

  /** An order's currency is the paid currency of its claims' resolutions that name none. */
  const orderCurrencyPaidDelta = (x: string) =>
    applyPaidDays(`
      select c.store_id, ${DAY('r.created_at')} as day, r.resolution_type, o.currency, o.sign as resolutions,
        o.sign * r.paid_value as amount
      from ${x} o join claims c on c.order_id = o.id and c.deleted_at is null
      join claim_resolutions r on r.claim_id = c.id and r.deleted_at is null and r.paid_value is not null
        and r.paid_currency is null`);

  const policyDelta = (x: string) =>
    applyOrderDays(`
      select o.store_id, ${DAY('o.source_created_at')} as day, coalesce(p.premium_currency, o.currency) as currency,
        0 as orders, p.sign as protected_orders, p.sign * p.premium_paid as premiums
      from ${x} p join orders o on o.id = p.order_id and o.deleted_at is null
      where p.removed_at is null and p.deleted_at is null`);

  /** A claim's first decision (D52), among `changes` (claim_state_changes rows). */
  const firstDecision = (changes: string) => `
    left join lateral (
      select s.to_state from ${changes} s where s.claim_id = c.id and s.to_state in ${DECIDING} order by s.id limit 1
    ) d on true`;

  const claimDays = (x: string, changes: string, sign = 'c.sign') => `
    select c.store_id, ${DAY('c.created_at')} as day, ${sign} as claims,
      case when d.to_state is not null then ${sign} else 0 end as decided,
      case when d.to_state in ${APPROVING} then ${sign} else 0 end as approved
    from ${x} c ${firstDecision(changes)}
    where c.deleted_at is null`;

  const claimDelta = (x: string, dependents = true) =>
    applyClaimDays(
      claimDays(x, dependents ? 'claim_state_changes' : '(select * from claim_state_changes where false)'),
    ) +
    applyPaidDays(`
      select c.store_id, ${DAY('r.created_at')} as day, r.resolution_type, coalesce(r.paid_currency, o.currency) as currency,
        c.sign as resolutions, c.sign * r.paid_value as amount
      from ${x} c join claim_resolutions r on r.claim_id = c.id and r.deleted_at is null and r.paid_value is not null
      join orders o on o.id = c.order_id
      where c.deleted_at is null and ${dependents}`);

  const resolutionDelta = (x: string) =>
    applyPaidDays(`
      select c.store_id, ${DAY('r.created_at')} as day, r.resolution_type, coalesce(r.paid_currency, o.currency) as currency,
        r.sign as resolutions, r.sign * r.paid_value as amount
      from ${x} r join claims c on c.id = r.claim_id and c.deleted_at is null
      join orders o on o.id = c.order_id
      where r.deleted_at is null and r.paid_value is not null`);

  /**
   * A state change can only move a claim's first decision: the claims it touches counted with
   * their first decision before the statement (the table without its new rows, with its old
   * ones) and after it.
   */
  const stateChangeDelta = (withOld: boolean) => {
    const touched = withOld
      ? 'select claim_id from new_rows union select claim_id from old_rows'
      : 'select distinct claim_id from new_rows';
    const before = `(select id, claim_id, to_state from claim_state_changes where id not in (select id from new_rows)${
      withOld ? ' union all select id, claim_id, to_state from old_rows' : ''
    })`;
    const claims = `(select c.* from claims c where c.id in (${touched}))`;
    return applyClaimDays(`
      select store_id, day, 0 as claims, decided, approved from (${claimDays(claims, before, '-1')}) b
      union all
      select store_id, day, 0, decided, approved from (${claimDays(claims, 'claim_state_changes', '1')}) a`);
  };

  interface Source {
    table: string;
    /** The columns the rollups read: an update that changes none of them changes nothing. */
    columns: string[];
    /** `dependents` false: the rows' own figures only (see INSERT below). */
    delta: (x: string, dependents?: boolean) => string;
    /** More work for an update, on its rows that changed `columns`. */
    onUpdate?: { columns: string[]; delta: (x: string) => string };
  }

  const SOURCES: Source[] = [
    {
      table: 'orders',
      columns: ['store_id', 'source_created_at', 'currency', 'deleted_at'],
      delta: orderDelta,
      onUpdate: { columns: ['currency'], delta: orderCurrencyPaidDelta },
    },
    {
      table: 'protection_policies',
      columns: ['order_id', 'premium_paid', 'premium_currency', 'removed_at', 'deleted_at'],
      delta: policyDelta,
    },
    { table: 'claims', columns: ['store_id', 'order_id', 'created_at', 'deleted_at'], delta: claimDelta },
    {
      table: 'claim_resolutions',
      columns: ['claim_id', 'resolution_type', 'paid_value', 'paid_currency', 'created_at', 'deleted_at'],
      delta: resolutionDelta,
    },
  ];

  /** Old and new rows of an update that changed `columns`, signed -1 and +1. */
  const changed = (columns: string[]) => {
    const differ = `(${columns.map((c) => `o.${c}`).join(', ')}) is distinct from (${columns.map((c) => `n.${c}`).join(', ')})`;
    return `(select -1 as sign, o.* from old_rows o join new_rows n on n.id = o.id where ${differ}
      union all select 1 as sign, n.* from old_rows o join new_rows n on n.id = o.id where ${differ})`;
  };

  /**
   * A hard delete is refused while the store has rollups (see above): it is allowed once they
   * are gone, with the store (the foreign key) or first, by a reset that empties the store.
   */
  const refuseDelete = (table: string, storeOf: string, replace = false) => `
    create ${replace ? 'or replace ' : ''}function analytics_${table}_delete() returns trigger language plpgsql as $$
    begin
      if exists (
        select 1 from old_rows x ${storeOf}
        where ${[...new Set([...DAY_TABLES, ...DAY_TABLES.map((t) => t + sink.suffix)])]
          .map((t) => `exists (select 1 from ${t} a where a.store_id = s.id)`)
          .join('\n          or ')}
      ) then
        raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', '${table}';
      end if;
      return null;
    end $$;${
      replace
        ? ''
        : `
    create trigger analytics_${table}_delete after delete on ${table}
      referencing old table as old_rows for each statement execute function analytics_${table}_delete();`
    }`;

  /** From a deleted row `x` to its store `s`. */
  const storeOf: Record<string, string> = {
    orders: 'join stores s on s.id = x.store_id',
    protection_policies: 'join stores s on s.id = x.store_id',
    claims: 'join stores s on s.id = x.store_id',
    claim_resolutions: 'join claims c on c.id = x.claim_id join stores s on s.id = c.store_id',
    claim_state_changes: 'join claims c on c.id = x.claim_id join stores s on s.id = c.store_id',
  };

  return {
    SOURCES,
    applyClaimDays,
    claimDays,
    orderDelta,
    resolutionDelta,
    stateChangeDelta,
    changed,
    refuseDelete,
    storeOf,
  };
}

/** The tables the rollups count, each with its insert, update and delete trigger. */
export const TABLES = ['orders', 'protection_policies', 'claims', 'claim_resolutions', 'claim_state_changes'];

/**
 * The insert and update trigger functions of every counted table, writing to `sink`, with
 * their triggers; `replace` only replaces the functions of triggers already there.
 */
export function rollupTriggers(sink: Sink, replace = false): string {
  const { SOURCES, changed, stateChangeDelta } = rollupSql(sink);
  const trigger = (table: string, event: 'insert' | 'update', body: string) => `
    create ${replace ? 'or replace ' : ''}function analytics_${table}_${event}() returns trigger language plpgsql as $$
    begin
      ${body}
      return null;
    end $$;${
      replace
        ? ''
        : `
    create trigger analytics_${table}_${event} after ${event} on ${table}
      referencing ${event === 'update' ? 'old table as old_rows ' : ''}new table as new_rows
      for each statement execute function analytics_${table}_${event}();`
    }`;
  const ddl: string[] = [];
  for (const s of SOURCES) {
    // A new order or claim has no policy, state change or resolution from an earlier
    // statement (their foreign keys): those written with it, in the same statement or a later
    // one, are counted by their own triggers, so an insert counts only the rows themselves.
    ddl.push(trigger(s.table, 'insert', s.delta('(select 1 as sign, * from new_rows)', false)));
    ddl.push(
      trigger(
        s.table,
        'update',
        s.delta(changed(s.columns)) + (s.onUpdate ? s.onUpdate.delta(changed(s.onUpdate.columns)) : ''),
      ),
    );
  }
  ddl.push(trigger('claim_state_changes', 'insert', stateChangeDelta(false)));
  ddl.push(trigger('claim_state_changes', 'update', stateChangeDelta(true)));
  return ddl.join('\n');
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table analytics_order_days (
      store_id text not null references stores (id) on delete cascade,
      day date not null,
      -- The order's currency for orders, the premium's for protected orders and premiums.
      currency char(3) not null,
      slot smallint not null,
      orders bigint not null default 0,
      protected_orders bigint not null default 0,
      premiums numeric not null default 0,
      primary key (store_id, day, currency, slot)
    );
    create table analytics_claim_days (
      store_id text not null references stores (id) on delete cascade,
      day date not null,
      slot smallint not null,
      claims bigint not null default 0,
      decided bigint not null default 0,
      approved bigint not null default 0,
      primary key (store_id, day, slot)
    );
    create table analytics_paid_days (
      store_id text not null references stores (id) on delete cascade,
      day date not null,
      resolution_type text not null,
      currency char(3) not null,
      slot smallint not null,
      resolutions bigint not null default 0,
      amount numeric not null default 0,
      primary key (store_id, day, resolution_type, currency, slot)
    );
  `.execute(db);

  const { refuseDelete, storeOf, orderDelta, applyClaimDays, claimDays, resolutionDelta } = rollupSql(SLOT_ROW);
  const ddl = [rollupTriggers(SLOT_ROW)];
  for (const t of TABLES) ddl.push(refuseDelete(t, storeOf[t]!));
  await sql.raw(ddl.join('\n')).execute(db);
  // The rows there are now, counted once each: orders with their live policies, claims with
  // their first decisions, resolutions paid.
  await sql
    .raw(
      [
        orderDelta('(select 1 as sign, * from orders)'),
        applyClaimDays(claimDays('(select 1 as sign, * from claims)', 'claim_state_changes')),
        resolutionDelta('(select 1 as sign, * from claim_resolutions)'),
      ].join('\n'),
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const ddl: string[] = [];
  for (const t of TABLES)
    for (const event of ['insert', 'update', 'delete']) {
      ddl.push(`drop trigger analytics_${t}_${event} on ${t};`);
      ddl.push(`drop function analytics_${t}_${event}();`);
    }
  ddl.push('drop table analytics_paid_days; drop table analytics_claim_days; drop table analytics_order_days;');
  await sql.raw(ddl.join('\n')).execute(db);
}

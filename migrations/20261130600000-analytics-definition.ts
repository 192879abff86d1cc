import { type Kysely, sql } from 'kysely';

/**
 * D52's rollups as server/src/domain/analytics/definition.ts defines them (`pnpm
 * rollups:migration`): the fold, the change-marking triggers, the hard-delete guards and
 * `claim_queue()`. Their SQL stood in four places (the contract's claim queues, the queue
 * function of 20261126000000, the strings of the rollup migrations, the fold's code); it is
 * now emitted by one definition, the decision and approval states taken from the queues, and
 * written here as text.
 *
 * The fold moves from the service's code into the database, so the SQL that runs is the SQL a
 * migration shipped: a function per day table (`analytics_*_days_fold`), each call one round's
 * share of a fold in bounded rounds (20261130500000), which keeps each claim's hours to its
 * first decision in the claim ledger (20261130500100). The day rows lose `slot`: the
 * per-backend slots of the in-write triggers (20261127000000) are gone since the fold
 * (20261129000000), which writes one row per key; any rows of other slots are added into it
 * first.
 *
 * The triggers, guards and `claim_queue()` are the same as before, so `down` leaves them.
 */

/** Emitted by the definition; server/test/analytics/rollup-definition.test.ts compares them. Never edited by hand. */
export const ROLLUP_SQL = `
create or replace function claim_queue(state text) returns text
language sql immutable parallel safe
return case
  when state in ('NEW', 'OPEN', 'COMMUNICATING', 'WAITING_FOR_BRAND') then 'to_do'
  when state in ('WAITING_FOR_CUSTOMER') then 'waiting_on_shopper'
  when state in ('TEMPORARILY_DISMISSED', 'WAITING_FOR_OP') then 'on_hold'
  when state in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND') then 'approved'
  when state in ('DENIED', 'DISMISSED') then 'declined'
  when state in ('CLOSED', 'ARCHIVED') then 'closed'
end;
reindex index claims_store_queue_page_idx;

create or replace function analytics_changed() returns trigger language plpgsql as $$
begin
  new.changed_xid := pg_current_xact_id();
  return new;
end $$;
create or replace trigger analytics_changed before update on orders for each row
  when ((old.store_id, old.source_created_at, old.currency, old.deleted_at) is distinct from (new.store_id, new.source_created_at, new.currency, new.deleted_at)) execute function analytics_changed();
create or replace function analytics_orders_delete() returns trigger language plpgsql as $$
begin
  if exists (select 1 from old_rows x join stores s on s.id = x.store_id where exists (select 1 from analytics_order_days a where a.store_id = s.id) or exists (select 1 from analytics_claim_days a where a.store_id = s.id) or exists (select 1 from analytics_paid_days a where a.store_id = s.id)) then
    raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', 'orders';
  end if;
  return null;
end $$;
create or replace trigger analytics_orders_delete after delete on orders
  referencing old table as old_rows for each statement execute function analytics_orders_delete();
create or replace trigger analytics_changed before update on protection_policies for each row
  when ((old.order_id, old.premium_paid, old.premium_currency, old.removed_at, old.deleted_at) is distinct from (new.order_id, new.premium_paid, new.premium_currency, new.removed_at, new.deleted_at)) execute function analytics_changed();
create or replace function analytics_protection_policies_delete() returns trigger language plpgsql as $$
begin
  if exists (select 1 from old_rows x join stores s on s.id = x.store_id where exists (select 1 from analytics_order_days a where a.store_id = s.id) or exists (select 1 from analytics_claim_days a where a.store_id = s.id) or exists (select 1 from analytics_paid_days a where a.store_id = s.id)) then
    raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', 'protection_policies';
  end if;
  return null;
end $$;
create or replace trigger analytics_protection_policies_delete after delete on protection_policies
  referencing old table as old_rows for each statement execute function analytics_protection_policies_delete();
create or replace trigger analytics_changed before update on claims for each row
  when ((old.store_id, old.order_id, old.created_at, old.deleted_at) is distinct from (new.store_id, new.order_id, new.created_at, new.deleted_at)) execute function analytics_changed();
create or replace function analytics_claims_delete() returns trigger language plpgsql as $$
begin
  if exists (select 1 from old_rows x join stores s on s.id = x.store_id where exists (select 1 from analytics_order_days a where a.store_id = s.id) or exists (select 1 from analytics_claim_days a where a.store_id = s.id) or exists (select 1 from analytics_paid_days a where a.store_id = s.id)) then
    raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', 'claims';
  end if;
  return null;
end $$;
create or replace trigger analytics_claims_delete after delete on claims
  referencing old table as old_rows for each statement execute function analytics_claims_delete();
create or replace trigger analytics_changed before update on claim_resolutions for each row
  when ((old.claim_id, old.resolution_type, old.paid_value, old.paid_currency, old.created_at, old.deleted_at) is distinct from (new.claim_id, new.resolution_type, new.paid_value, new.paid_currency, new.created_at, new.deleted_at)) execute function analytics_changed();
create or replace function analytics_claim_resolutions_delete() returns trigger language plpgsql as $$
begin
  if exists (select 1 from old_rows x join claims c on c.id = x.claim_id join stores s on s.id = c.store_id where exists (select 1 from analytics_order_days a where a.store_id = s.id) or exists (select 1 from analytics_claim_days a where a.store_id = s.id) or exists (select 1 from analytics_paid_days a where a.store_id = s.id)) then
    raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', 'claim_resolutions';
  end if;
  return null;
end $$;
create or replace trigger analytics_claim_resolutions_delete after delete on claim_resolutions
  referencing old table as old_rows for each statement execute function analytics_claim_resolutions_delete();
create or replace trigger analytics_changed before update on claim_state_changes for each row
  when ((old.id, old.claim_id, old.to_state, old.created_at) is distinct from (new.id, new.claim_id, new.to_state, new.created_at)) execute function analytics_changed();
create or replace function analytics_claim_state_changes_delete() returns trigger language plpgsql as $$
begin
  if exists (select 1 from old_rows x join claims c on c.id = x.claim_id join stores s on s.id = c.store_id where exists (select 1 from analytics_order_days a where a.store_id = s.id) or exists (select 1 from analytics_claim_days a where a.store_id = s.id) or exists (select 1 from analytics_paid_days a where a.store_id = s.id)) then
    raise exception '% rows are soft-deleted (deleted_at): the analytics rollups (D52) count them', 'claim_state_changes';
  end if;
  return null;
end $$;
create or replace trigger analytics_claim_state_changes_delete after delete on claim_state_changes
  referencing old table as old_rows for each statement execute function analytics_claim_state_changes_delete();
create or replace function analytics_protection_policies_moved() returns trigger language plpgsql as $$
begin
  update orders set changed_xid = pg_current_xact_id() where id = old.order_id;
  return new;
end $$;
create or replace trigger analytics_moved before update on protection_policies for each row
  when (old.order_id is distinct from new.order_id) execute function analytics_protection_policies_moved();
create or replace function analytics_claim_state_changes_moved() returns trigger language plpgsql as $$
begin
  update claims set changed_xid = pg_current_xact_id() where id = old.claim_id;
  return new;
end $$;
create or replace trigger analytics_moved before update on claim_state_changes for each row
  when (old.claim_id is distinct from new.claim_id) execute function analytics_claim_state_changes_moved();

create or replace function analytics_order_days_fold(since_xid xid8, before_xid xid8, after_id text, lim integer)
returns table (folded integer, last text)
language plpgsql as $$
begin
  return query execute $fold$
  with changed as (select distinct id from (select id from ((select id as id from orders where changed_xid >= $1 and changed_xid < $2 and id > coalesce($3, '') order by id limit $4) union (select order_id as id from protection_policies where changed_xid >= $1 and changed_xid < $2 and order_id > coalesce($3, '') order by order_id limit $4)) c order by id limit $4) c), now as (
      select o.id as order_id, o.store_id, (o.source_created_at at time zone 'UTC')::date as day, x.currency,
        sum(x.orders) as orders, sum(x.protected_orders) as protected_orders, sum(x.premiums) as premiums
      from orders o cross join lateral (
        select o.currency, 1 as orders, 0 as protected_orders, 0::numeric as premiums
        union all
        select coalesce(pp.premium_currency, o.currency), 0, 1, coalesce(pp.premium_paid, 0)
        from protection_policies pp where pp.order_id = o.id and pp.removed_at is null and pp.deleted_at is null
      ) x
      where o.id in (select id from changed) and o.deleted_at is null
      group by o.id, x.currency),
  old as (delete from analytics_order_counted l where l.order_id in (select id from changed) returning l.*),
  counted as (insert into analytics_order_counted (order_id, store_id, day, currency, orders, protected_orders, premiums) select order_id, store_id, day, currency, orders, protected_orders, premiums from now),
  delta as (select store_id, day, currency, orders, protected_orders, premiums from now union all select store_id, day, currency, -orders as orders, -protected_orders as protected_orders, -premiums as premiums from old),
  added as (
    insert into analytics_order_days as t (store_id, day, currency, orders, protected_orders, premiums)
    select d.store_id, d.day, d.currency, sum(d.orders), sum(d.protected_orders), sum(d.premiums)
    from delta d join stores s on s.id = d.store_id
    group by d.store_id, d.day, d.currency having sum(d.orders) <> 0 or sum(d.protected_orders) <> 0 or sum(d.premiums) <> 0
    order by d.store_id, d.day, d.currency
    on conflict (store_id, day, currency) do update set orders = t.orders + excluded.orders, protected_orders = t.protected_orders + excluded.protected_orders, premiums = t.premiums + excluded.premiums
  )
  select count(*)::integer, (select id from changed order by id desc limit 1) from changed
  $fold$ using since_xid, before_xid, after_id, lim;
end $$;
create or replace function analytics_claim_days_fold(since_xid xid8, before_xid xid8, after_id text, lim integer)
returns table (folded integer, last text)
language plpgsql as $$
begin
  return query execute $fold$
  with changed as (select distinct id from (select id from ((select id as id from claims where changed_xid >= $1 and changed_xid < $2 and id > coalesce($3, '') order by id limit $4) union (select claim_id as id from claim_state_changes where changed_xid >= $1 and changed_xid < $2 and claim_id > coalesce($3, '') order by claim_id limit $4)) c order by id limit $4) c), now as (
      select c.id as claim_id, c.store_id, (c.created_at at time zone 'UTC')::date as day, 1 as claims,
        case when d.to_state is not null then 1 else 0 end as decided,
        case when d.to_state in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND') then 1 else 0 end as approved,
        (extract(epoch from d.created_at - c.created_at) / 3600)::float8 as decision_hours
      from claims c left join lateral (
        select s.to_state, s.created_at from claim_state_changes s
        where s.claim_id = c.id and s.to_state in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED') order by s.id limit 1
      ) d on true
      where c.id in (select id from changed) and c.deleted_at is null),
  old as (delete from analytics_claim_counted l where l.claim_id in (select id from changed) returning l.*),
  counted as (insert into analytics_claim_counted (claim_id, store_id, day, claims, decided, approved, decision_hours) select claim_id, store_id, day, claims, decided, approved, decision_hours from now),
  delta as (select store_id, day, claims, decided, approved from now union all select store_id, day, -claims as claims, -decided as decided, -approved as approved from old),
  added as (
    insert into analytics_claim_days as t (store_id, day, claims, decided, approved)
    select d.store_id, d.day, sum(d.claims), sum(d.decided), sum(d.approved)
    from delta d join stores s on s.id = d.store_id
    group by d.store_id, d.day having sum(d.claims) <> 0 or sum(d.decided) <> 0 or sum(d.approved) <> 0
    order by d.store_id, d.day
    on conflict (store_id, day) do update set claims = t.claims + excluded.claims, decided = t.decided + excluded.decided, approved = t.approved + excluded.approved
  )
  select count(*)::integer, (select id from changed order by id desc limit 1) from changed
  $fold$ using since_xid, before_xid, after_id, lim;
end $$;
create or replace function analytics_paid_days_fold(since_xid xid8, before_xid xid8, after_id text, lim integer)
returns table (folded integer, last text)
language plpgsql as $$
begin
  return query execute $fold$
  with changed as (select distinct id from (select id from ((select id as id from claim_resolutions where changed_xid >= $1 and changed_xid < $2 and id > coalesce($3, '') order by id limit $4) union (select r.id as id from claims c join claim_resolutions r on r.claim_id = c.id where c.changed_xid >= $1 and c.changed_xid < $2 and r.id > coalesce($3, '') order by r.id limit $4) union (select r.id as id from orders o join claims c on c.order_id = o.id join claim_resolutions r on r.claim_id = c.id where o.changed_xid >= $1 and o.changed_xid < $2 and r.id > coalesce($3, '') order by r.id limit $4)) c order by id limit $4) c), now as (
      select r.id as resolution_id, c.store_id, (r.created_at at time zone 'UTC')::date as day, r.resolution_type,
        coalesce(r.paid_currency, o.currency) as currency, 1 as resolutions, r.paid_value as amount
      from claim_resolutions r join claims c on c.id = r.claim_id and c.deleted_at is null
        join orders o on o.id = c.order_id
      where r.id in (select id from changed) and r.deleted_at is null and r.paid_value is not null),
  old as (delete from analytics_paid_counted l where l.resolution_id in (select id from changed) returning l.*),
  counted as (insert into analytics_paid_counted (resolution_id, store_id, day, resolution_type, currency, resolutions, amount) select resolution_id, store_id, day, resolution_type, currency, resolutions, amount from now),
  delta as (select store_id, day, resolution_type, currency, resolutions, amount from now union all select store_id, day, resolution_type, currency, -resolutions as resolutions, -amount as amount from old),
  added as (
    insert into analytics_paid_days as t (store_id, day, resolution_type, currency, resolutions, amount)
    select d.store_id, d.day, d.resolution_type, d.currency, sum(d.resolutions), sum(d.amount)
    from delta d join stores s on s.id = d.store_id
    group by d.store_id, d.day, d.resolution_type, d.currency having sum(d.resolutions) <> 0 or sum(d.amount) <> 0
    order by d.store_id, d.day, d.resolution_type, d.currency
    on conflict (store_id, day, resolution_type, currency) do update set resolutions = t.resolutions + excluded.resolutions, amount = t.amount + excluded.amount
  )
  select count(*)::integer, (select id from changed order by id desc limit 1) from changed
  $fold$ using since_xid, before_xid, after_id, lim;
end $$;
`;

/** No earlier migration carried rollup SQL. */
const PREVIOUS_ROLLUP_SQL = ``;

/** Tables and columns the change needs, written by hand: before the generated SQL, and after it on the way down. */
const UP_DDL = `
with old as (delete from analytics_order_days returning *)
insert into analytics_order_days (store_id, day, currency, slot, orders, protected_orders, premiums)
select store_id, day, currency, 0, sum(orders), sum(protected_orders), sum(premiums) from old group by 1, 2, 3;
with old as (delete from analytics_claim_days returning *)
insert into analytics_claim_days (store_id, day, slot, claims, decided, approved)
select store_id, day, 0, sum(claims), sum(decided), sum(approved) from old group by 1, 2;
with old as (delete from analytics_paid_days returning *)
insert into analytics_paid_days (store_id, day, resolution_type, currency, slot, resolutions, amount)
select store_id, day, resolution_type, currency, 0, sum(resolutions), sum(amount) from old group by 1, 2, 3, 4;
alter table analytics_order_days drop constraint analytics_order_days_pkey, drop column slot,
  add primary key (store_id, day, currency);
alter table analytics_claim_days drop constraint analytics_claim_days_pkey, drop column slot,
  add primary key (store_id, day);
alter table analytics_paid_days drop constraint analytics_paid_days_pkey, drop column slot,
  add primary key (store_id, day, resolution_type, currency);
`;
const DOWN_DDL = `
drop function analytics_order_days_fold(xid8, xid8, text, integer),
  analytics_claim_days_fold(xid8, xid8, text, integer), analytics_paid_days_fold(xid8, xid8, text, integer);
alter table analytics_order_days drop constraint analytics_order_days_pkey,
  add column slot smallint not null default 0, add primary key (store_id, day, currency, slot);
alter table analytics_claim_days drop constraint analytics_claim_days_pkey,
  add column slot smallint not null default 0, add primary key (store_id, day, slot);
alter table analytics_paid_days drop constraint analytics_paid_days_pkey,
  add column slot smallint not null default 0, add primary key (store_id, day, resolution_type, currency, slot);
alter table analytics_order_days alter column slot drop default;
alter table analytics_claim_days alter column slot drop default;
alter table analytics_paid_days alter column slot drop default;
`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(UP_DDL + ROLLUP_SQL).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(PREVIOUS_ROLLUP_SQL + DOWN_DDL).execute(db);
}

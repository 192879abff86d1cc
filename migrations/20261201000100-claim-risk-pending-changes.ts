import { type Kysely, sql } from 'kysely';

/**
 * D57: a change that queues a claim already waiting in `claim_risk_pending` now counts itself
 * on the claim's row (`changes`), where it did nothing. The statement that computes a claim's
 * risk takes the row off only while `changes` is what its own snapshot read: a change committed
 * after that snapshot (a message, a file, a package's proof, while the statement was waiting on
 * the claim's row) leaves the row for the next sweep, where it was taken and lost, leaving the
 * claim with a risk that did not see it. The packages' trigger queues its claims in id order,
 * so two transactions queueing the same claims wait on each other rather than deadlock.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table claim_risk_pending add column changes bigint not null default 1;
    create or replace function claim_risk_queue() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'tracking_packages' then
        insert into claim_risk_pending (claim_id)
        select distinct c.id from claims c join claim_items i on i.claim_id = c.id
        where c.order_id = new.order_id and i.source_fulfillment_id = new.source_fulfillment_id
        order by c.id
        on conflict (claim_id) do update set changes = claim_risk_pending.changes + 1;
      elsif new.claim_id is not null then
        insert into claim_risk_pending (claim_id) values (new.claim_id)
        on conflict (claim_id) do update set changes = claim_risk_pending.changes + 1;
      end if;
      return null;
    end $$;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function claim_risk_queue() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'tracking_packages' then
        insert into claim_risk_pending (claim_id)
        select distinct c.id from claims c join claim_items i on i.claim_id = c.id
        where c.order_id = new.order_id and i.source_fulfillment_id = new.source_fulfillment_id
        on conflict do nothing;
      elsif new.claim_id is not null then
        insert into claim_risk_pending (claim_id) values (new.claim_id) on conflict do nothing;
      end if;
      return null;
    end $$;
    alter table claim_risk_pending drop column changes;
  `.execute(db);
}

import { type Kysely, sql } from 'kysely';

/**
 * Delivery jobs are queued after the change commits, not by a trigger inside it (D32).
 *
 * The trigger called `graphile_worker.add_job`, which sends NOTIFY; PostgreSQL serializes the
 * commits of transactions that notified (a cluster-wide lock held through the WAL flush), so
 * every write that fanned out an event committed one after another. Now the delivery rows are
 * the outbox, written in the change's transaction as before; the process that committed queues
 * their jobs afterwards in batches (one `add_jobs` call and one notification per batch) and
 * marks them `queued_at`. A delivery still unqueued a moment after it became due (its process
 * died between commit and queueing) is found by the sweep through the new partial index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    drop trigger webhook_deliveries_enqueue on webhook_deliveries;
    drop function webhook_delivery_enqueue();
    alter table webhook_deliveries add column queued_at timestamptz;
    -- Every delivery due so far had its job queued by the trigger.
    update webhook_deliveries set queued_at = updated_at where status = 'pending';
    create index webhook_deliveries_unqueued_idx on webhook_deliveries (updated_at)
      where status = 'pending' and queued_at is null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index webhook_deliveries_unqueued_idx;
    alter table webhook_deliveries drop column queued_at;
    create function webhook_delivery_enqueue() returns trigger language plpgsql as $$
    begin
      if new.status = 'pending' and new.next_attempt_at is not null and (
        tg_op = 'INSERT' or old.status <> 'pending' or new.next_attempt_at is distinct from old.next_attempt_at
      ) then
        perform graphile_worker.add_job(
          'webhook_deliver',
          json_build_object('eventId', new.event_id, 'clientId', new.client_id),
          run_at := new.next_attempt_at
        );
      end if;
      return null;
    end
    $$;
    create trigger webhook_deliveries_enqueue
      after insert or update of status, next_attempt_at on webhook_deliveries
      for each row execute function webhook_delivery_enqueue();
  `.execute(db);
}

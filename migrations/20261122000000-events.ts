import { type Kysely, sql } from 'kysely';

/**
 * Webhook events and their deliveries (spec "Events", D32, D34, D35). An event is written in
 * the transaction of the change that causes it; its fan-out (one delivery per subscribed
 * installation) is fixed in that same transaction. Attempts are the delivery log of D34.
 *
 * Delivery runs on graphile-worker (its schema is installed by `migrateToLatest` before these
 * migrations). A trigger enqueues a job whenever a delivery becomes due: at fan-out, when a
 * retry is scheduled, on redelivery, and when an expired lease is swept. So every path that
 * makes a delivery due enqueues it the same way, in the transaction that made it due.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_events (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      topic text not null,
      -- json, not jsonb: the body keeps the key order of its schema, byte for byte on every retry.
      body json not null,
      created_at timestamptz not null default now()
    );

    -- One row per (event, app): an app has at most one active installation per store.
    create table webhook_deliveries (
      event_id text not null references webhook_events (id) on delete cascade,
      client_id text not null references apps (client_id) on delete cascade,
      installation_id text not null references installations (id) on delete cascade,
      status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
      attempt_count integer not null default 0,
      next_attempt_at timestamptz default now(),
      -- The attempt in flight: the process holding lease_token owns it until leased_until;
      -- after that any process may make the attempt again (a SIGKILLed holder loses nothing).
      leased_until timestamptz,
      lease_token text,
      -- The event's creation time, copied so the D34 log pages on one index.
      created_at timestamptz not null,
      updated_at timestamptz not null default now(),
      primary key (event_id, client_id)
    );
    create index webhook_deliveries_app_log_idx on webhook_deliveries (client_id, created_at, event_id);
    create index webhook_deliveries_installation_pending_idx on webhook_deliveries (installation_id)
      where status = 'pending';
    -- The sweeps: expired leases, and due deliveries no process has taken for long.
    create index webhook_deliveries_leased_idx on webhook_deliveries (leased_until)
      where status = 'pending' and leased_until is not null;
    create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at)
      where status = 'pending' and leased_until is null;

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

    create table webhook_attempts (
      id bigserial primary key,
      event_id text not null,
      client_id text not null,
      attempted_at timestamptz not null,
      duration_ms integer not null,
      status_code integer,
      error text,
      response_excerpt text,
      foreign key (event_id, client_id) references webhook_deliveries (event_id, client_id) on delete cascade
    );
    create index webhook_attempts_delivery_idx on webhook_attempts (event_id, client_id, attempted_at);

    -- D35: a 410 answer disables the installation's subscription until a test send succeeds.
    alter table installations add column webhook_disabled_at timestamptz;

    -- D34 rotation: the previous secret keeps signing (beside the new one) until it expires.
    alter table apps add column previous_webhook_secret_ciphertext text;
    alter table apps add column previous_webhook_secret_expires_at timestamptz;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table apps drop column previous_webhook_secret_expires_at;
    alter table apps drop column previous_webhook_secret_ciphertext;
    alter table installations drop column webhook_disabled_at;
    drop table webhook_attempts;
    drop table webhook_deliveries;
    drop function webhook_delivery_enqueue();
    drop table webhook_events;
  `.execute(db);
}

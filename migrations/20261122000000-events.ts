import { type Kysely, sql } from 'kysely';

/**
 * Webhook events and their deliveries (spec "Events", D32, D34, D35). An event is written in
 * the transaction of the change that causes it; its fan-out (one delivery per subscribed
 * installation) is fixed in that same transaction. Attempts are the delivery log of D34.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_events (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      topic text not null,
      body jsonb not null,
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
      -- The event's creation time, copied so the D34 log pages on one index.
      created_at timestamptz not null,
      updated_at timestamptz not null default now(),
      primary key (event_id, client_id)
    );
    create index webhook_deliveries_app_log_idx on webhook_deliveries (client_id, created_at, event_id);
    create index webhook_deliveries_installation_pending_idx on webhook_deliveries (installation_id)
      where status = 'pending';

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
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table installations drop column webhook_disabled_at;
    drop table webhook_attempts;
    drop table webhook_deliveries;
    drop table webhook_events;
  `.execute(db);
}

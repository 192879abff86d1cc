import { type Kysely, sql } from 'kysely';

/**
 * Shipment tracking (D54).
 *
 * A package is one tracking number of a fulfillment. A number a tracking source reports before
 * any fulfillment names it is kept unbound (no fulfillment, `unbound_until` set) for 14 days and
 * bound when a fulfillment with it arrives; the retention deletes it after that. `claim_id` is
 * unique: the guard that one package never yields two claims, whatever runs concurrently.
 *
 * An event is keyed per package by its origin's id or a digest of what it says (`event_key`):
 * inserting it twice does nothing. What it carries of a shopper's address (`description`,
 * `location`) is cleared with the webhook events' retention (D48).
 *
 * A tracking source holds its provider's webhook secret encrypted (AES-256-GCM under a key
 * derived from SECRET_KEY, as the apps' webhook secrets are): the service must read it back to
 * check signatures. A removed source stays (`removed_at`) so its id is never reused.
 *
 * The store's rules live in `tracking_settings`, one row once written; without one D54's
 * defaults apply. Every evaluation's outcome is a row of `tracking_decisions`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracking_sources (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      livemode boolean not null,
      provider text not null check (provider in ('aftership', 'easypost', 'ship24')),
      secret_ciphertext text not null,
      created_at timestamptz not null default now(),
      removed_at timestamptz
    );
    create index tracking_sources_store_idx on tracking_sources (store_id, created_at) where removed_at is null;

    create table tracking_packages (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      livemode boolean not null,
      order_id text,
      source_fulfillment_id text,
      tracking_number text not null check (char_length(tracking_number) between 1 and 128),
      carrier text,
      status text not null default 'unknown' check (status in (
        'pre_transit', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered',
        'return_to_sender', 'exception', 'lost', 'unknown'
      )),
      sub_status text,
      status_at timestamptz,
      last_scan_at timestamptz,
      shipped_at timestamptz,
      delivered_at timestamptz,
      estimated_delivery_at timestamptz,
      claim_id text unique references claims (id) on delete set null,
      unbound_until timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      foreign key (order_id, source_fulfillment_id)
        references fulfillments (order_id, source_fulfillment_id) on delete cascade,
      check ((order_id is null) = (source_fulfillment_id is null)),
      check ((order_id is null) = (unbound_until is not null))
    );
    create unique index tracking_packages_fulfillment_number_idx
      on tracking_packages (order_id, source_fulfillment_id, tracking_number) where order_id is not null;
    create unique index tracking_packages_unbound_idx
      on tracking_packages (store_id, tracking_number) where order_id is null;
    -- Binding and the inbound webhook find a store's packages by number.
    create index tracking_packages_number_idx on tracking_packages (store_id, tracking_number);
    create index tracking_packages_unbound_until_idx on tracking_packages (unbound_until) where order_id is null;

    create table tracking_events (
      id bigint generated always as identity primary key,
      package_id text not null references tracking_packages (id) on delete cascade,
      event_key text not null,
      occurred_at timestamptz not null,
      status text not null,
      sub_status text,
      raw_status text,
      description text,
      location text,
      is_carrier_scan boolean not null,
      received_at timestamptz not null default now(),
      unique (package_id, event_key)
    );
    -- D48: the retention clears what an event says of an address, oldest first.
    create index tracking_events_retention_idx on tracking_events (received_at)
      where description is not null or location is not null;

    create table tracking_decisions (
      id bigint generated always as identity primary key,
      package_id text not null references tracking_packages (id) on delete cascade,
      at timestamptz not null default now(),
      as_of timestamptz not null,
      rule text check (rule in ('lost', 'delayed', 'returned')),
      action text not null check (action in ('filed', 'notified', 'skipped', 'escalated')),
      reason text not null,
      claim_id text references claims (id) on delete set null
    );
    create index tracking_decisions_package_idx on tracking_decisions (package_id, at);

    create table tracking_settings (
      store_id text primary key references stores (id) on delete cascade,
      mode text not null check (mode in ('off', 'notify', 'file')),
      lost_no_movement_days integer not null check (lost_no_movement_days between 1 and 365),
      lost_after_estimated_days integer not null check (lost_after_estimated_days between 0 and 365),
      delayed_enabled boolean not null,
      delayed_after_estimated_days integer not null check (delayed_after_estimated_days between 0 and 365),
      claim_window_days integer not null check (claim_window_days between 1 and 365),
      resolution_requested text not null check (resolution_requested in ('REFUND', 'RESHIP', 'STORE_CREDIT')),
      updated_at timestamptz not null default now()
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table tracking_settings;
    drop table tracking_decisions;
    drop table tracking_events;
    drop table tracking_packages;
    drop table tracking_sources;
  `.execute(db);
}

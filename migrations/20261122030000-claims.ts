import { type Kysely, sql } from 'kysely';

/**
 * Claims (spec "Claim", D22-D26): the claim, its items (one per filed issue), messages,
 * resolutions, store credits, documents, and the log of its state moves. Money is `numeric`.
 *
 * A claim belongs to one order row (one life of a `(store, sourceOrderId)`); `source_order_id`
 * is copied from it (immutable for that row) so the D24 list can filter and page on the claims
 * table alone. The list pages by keyset on `(created_at, id)` within a store: the
 * `claims_store_page_idx` index makes a page after a million claims one index range scan, as
 * cheap as the first (D24). The two narrower indexes serve the `claimState` and
 * `sourceOrderId` filters the same way.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table claims (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      order_id text not null references orders (id) on delete cascade,
      source_order_id text not null,
      policy_id text references protection_policies (id) on delete set null,
      claim_filed_from text not null default 'EXTERNAL' check (claim_filed_from in ('EXTERNAL', 'INTERNAL')),
      customer_id text,
      author_name text,
      author_email text,
      claim_description text,
      resolution_requested text check (resolution_requested in ('REFUND', 'RESHIP', 'STORE_CREDIT')),
      resolution_date timestamptz,
      claim_state text not null default 'NEW' check (claim_state in (
        'NEW', 'OPEN', 'COMMUNICATING', 'WAITING_FOR_CUSTOMER', 'WAITING_FOR_BRAND', 'WAITING_FOR_OP',
        'APPROVED', 'DENIED', 'DISMISSED', 'TEMPORARILY_DISMISSED', 'RESOLVED', 'RESOLVED_BY_BRAND',
        'CLOSED', 'ARCHIVED'
      )),
      claim_type text,
      claim_category text not null check (claim_category in ('SHIPPING', 'WARRANTY')),
      sales_channel text not null check (sales_channel in ('ONLINE', 'IN_STORE')),
      is_ota boolean not null default false,
      ota_description text,
      external_source text default 'api',
      warranty_period text,
      options jsonb,
      -- The offline filing's warranty, shipping address and item as sent (D23).
      offline_details jsonb,
      deny_reason text,
      deny_details text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index claims_store_page_idx on claims (store_id, created_at, id);
    create index claims_store_state_page_idx on claims (store_id, claim_state, created_at, id);
    create index claims_store_order_page_idx on claims (store_id, source_order_id, created_at, id);
    create index claims_order_idx on claims (order_id);

    create table claim_items (
      id text primary key,
      claim_id text not null references claims (id) on delete cascade,
      position integer not null,
      item_id text,
      quantity integer not null check (quantity > 0),
      issue_type text,
      source_fulfillment_id text,
      source_product_id text,
      source_variant_id text,
      details text,
      images jsonb not null default '[]',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index claim_items_claim_idx on claim_items (claim_id, position);

    create table claim_messages (
      id text primary key,
      claim_id text not null references claims (id) on delete cascade,
      sender_type text not null check (sender_type in ('customer', 'brand')),
      message text not null,
      author_name text,
      medias jsonb not null default '[]',
      created_at timestamptz not null default clock_timestamp()
    );
    create index claim_messages_claim_idx on claim_messages (claim_id, created_at, id);

    create table claim_resolutions (
      id text primary key,
      claim_id text not null references claims (id) on delete cascade,
      position integer not null,
      -- The client id of the app that approved.
      user_id text,
      resolution_type text not null check (resolution_type in ('REFUND', 'RESHIP', 'STORE_CREDIT')),
      resolution_details text,
      item_id text,
      quantity integer check (quantity > 0),
      paid_value numeric check (paid_value >= 0),
      paid_currency char(3),
      paid_original_value numeric check (paid_original_value >= 0),
      include_shipping boolean not null default false,
      shipping_amount numeric check (shipping_amount >= 0),
      credit_store boolean not null default false,
      -- The state the approval moved the claim to (the list item's resolution.claimState).
      claim_state text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index claim_resolutions_claim_idx on claim_resolutions (claim_id, position);

    -- D26: one store credit per STORE_CREDIT resolution; the code is unique service-wide.
    create table claim_store_credits (
      code text primary key,
      claim_id text not null references claims (id) on delete cascade,
      resolution_id text not null unique references claim_resolutions (id) on delete cascade,
      email_status text not null default 'PENDING' check (email_status in ('PENDING', 'SENT', 'FAILED')),
      email_time timestamptz,
      credit_value numeric not null check (credit_value >= 0),
      bonus_value numeric not null check (bonus_value >= 0),
      total_value numeric not null check (total_value >= 0),
      bonus numeric not null check (bonus >= 0),
      bonus_type text not null check (bonus_type in ('NONE', 'FLAT', 'PERCENTAGE')),
      credit_type text not null,
      credit_currency char(3),
      exchange_rate numeric,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index claim_store_credits_claim_idx on claim_store_credits (claim_id, created_at);

    create table claim_documents (
      id text primary key,
      claim_id text not null references claims (id) on delete cascade,
      position integer not null,
      url text not null,
      document_type text not null check (document_type in ('SIGNATURE', 'RECEIPT', 'IMAGE')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index claim_documents_claim_idx on claim_documents (claim_id, position);

    -- Every state move of a claim (D22, D36): who moved it, from where to where, and why.
    create table claim_state_changes (
      id bigint generated always as identity primary key,
      claim_id text not null references claims (id) on delete cascade,
      from_state text not null,
      to_state text not null,
      client_id text,
      note text,
      created_at timestamptz not null default now()
    );
    create index claim_state_changes_claim_idx on claim_state_changes (claim_id, id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table claim_state_changes;
    drop table claim_documents;
    drop table claim_store_credits;
    drop table claim_resolutions;
    drop table claim_messages;
    drop table claim_items;
    drop table claims;
  `.execute(db);
}

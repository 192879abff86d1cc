import { type Kysely, sql } from 'kysely';

/**
 * Orders and their line items (D18), protection policies (D19), fulfillments (D20), the
 * product catalogue (D21) and the Idempotency-Key records of token POSTs (D33). Money is
 * `numeric`, never float (architecture).
 *
 * An order row is one life of a `(store, sourceOrderId)`: DELETE soft-deletes it, and a later
 * PUT of the same id starts a new row, so claims and policies of the deleted order stay
 * attached to what they were filed against.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table orders (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      source_order_id text not null,
      source_order_number text not null,
      currency char(3) not null,
      policy_cancelled_at timestamptz,
      original_source_order_id text,
      source_created_at timestamptz not null,
      source_updated_at timestamptz,
      source_cancelled_at timestamptz,
      platform_id text not null,
      premium_paid numeric check (premium_paid >= 0),
      total numeric not null check (total >= 0),
      discount_total numeric check (discount_total >= 0),
      shipping_cost numeric check (shipping_cost >= 0),
      tax numeric check (tax >= 0),
      subtotal numeric check (subtotal >= 0),
      customer_email text,
      customer_name text,
      customer_phone text,
      shipping_cost_tax numeric check (shipping_cost_tax >= 0),
      -- false while the platform sent no lineItems (null): claim quantities are then unchecked (D23).
      line_items_known boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create unique index orders_live_key on orders (store_id, source_order_id) where deleted_at is null;

    -- D18 line items; claims check issue quantities against them (D23).
    create table order_line_items (
      order_id text not null references orders (id) on delete cascade,
      source_item_id text not null,
      position integer not null,
      source_product_id text,
      source_variant_id text,
      name text,
      sku text,
      quantity integer not null check (quantity >= 0),
      price numeric check (price >= 0),
      is_shippable boolean,
      primary key (order_id, source_item_id)
    );

    -- D19: one row per period of protection of an order; at most one active (removed_at null).
    -- The amount columns are the policy view claims show (customerAmount, brandAmount, ...).
    create table protection_policies (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      order_id text not null references orders (id) on delete cascade,
      premium_paid numeric not null check (premium_paid >= 0),
      premium_currency char(3),
      customer_amount numeric not null check (customer_amount >= 0),
      brand_amount numeric not null default 0 check (brand_amount >= 0),
      insured_amount numeric not null check (insured_amount >= 0),
      premium_discounted_amount numeric not null default 0 check (premium_discounted_amount >= 0),
      funded_by text not null default 'customer' check (funded_by in ('customer', 'brand')),
      hybrid_operator text not null default 'AND' check (hybrid_operator in ('AND', 'OR')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      removed_at timestamptz,
      removal_reason text check (removal_reason in ('CANCELLED', 'PREMIUM_REMOVED', 'ORDER_DELETED')),
      deleted_at timestamptz
    );
    create unique index protection_policies_active_key on protection_policies (order_id) where removed_at is null;
    create index protection_policies_order_idx on protection_policies (order_id, created_at);

    create table fulfillments (
      order_id text not null references orders (id) on delete cascade,
      source_fulfillment_id text not null,
      fulfillment_status text not null,
      source_item_ids jsonb not null default '[]',
      tracking_company text,
      tracking_number text[] not null default '{}',
      tracking_url text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      cancelled_at timestamptz,
      primary key (order_id, source_fulfillment_id)
    );

    -- D21: a product is keyed by the platform's id within its store; children point at their
    -- parent, and go with it.
    create table products (
      store_id text not null references stores (id) on delete cascade,
      product_id text not null,
      parent_product_id text,
      name text not null,
      description text,
      sku text,
      price numeric check (price >= 0),
      tax numeric check (tax >= 0),
      product_image text,
      variant_id text,
      status text,
      product_type text,
      inventory_type text,
      inventory_quantity integer check (inventory_quantity >= 0),
      in_stock boolean,
      bundle_product_ids text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (store_id, product_id),
      foreign key (store_id, parent_product_id) references products (store_id, product_id) on delete cascade
    );
    create index products_parent_idx on products (store_id, parent_product_id) where parent_product_id is not null;

    -- D33: one row per (installation, Idempotency-Key) of a token POST. 'running' while the
    -- first request is in flight; 'done' with the answer to replay.
    create table idempotency_keys (
      installation_id text not null references installations (id) on delete cascade,
      key text not null,
      route text not null,
      request_digest text not null,
      state text not null default 'running' check (state in ('running', 'done')),
      response_status integer,
      response_headers jsonb,
      response_body bytea,
      created_at timestamptz not null default now(),
      primary key (installation_id, key)
    );
    create index idempotency_keys_created_idx on idempotency_keys (created_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table idempotency_keys;
    drop table products;
    drop table fulfillments;
    drop table protection_policies;
    drop table order_line_items;
    drop table orders;
  `.execute(db);
}

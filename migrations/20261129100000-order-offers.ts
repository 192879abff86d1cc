import { type Kysely, sql } from 'kysely';

/**
 * D55: what a shopper was shown and chose, kept with the order. One row per order, written by
 * the order's own write when it carries a `protectionOffer`; `placed_at` is the order's
 * `source_created_at`, kept with it by the order write, so the results per cohort count a
 * period's offers through the (store, placed_at) index without touching the orders' rollups.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table order_offers (
      order_id text primary key references orders (id) on delete cascade,
      store_id text not null references stores (id) on delete cascade,
      placed_at timestamptz not null,
      policy_type text not null,
      amount numeric not null,
      currency text not null,
      subtotal numeric not null,
      rule_set_id text not null,
      rule_id text,
      widget_config_id text,
      widget_config_updated_at timestamptz,
      partner_application_id text,
      partner_variant_key text,
      preselected boolean not null,
      selected boolean not null,
      decided_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )
  `.execute(db);
  await sql`
    create index order_offers_store_placed_idx on order_offers (store_id, placed_at)
    include (partner_application_id, partner_variant_key, selected, preselected)
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table order_offers`.execute(db);
}

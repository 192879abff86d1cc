import { type Kysely, sql } from 'kysely';

/**
 * Partner contexts (D27, D37) and their A/B cohorts (D28): one live context per (store, app),
 * soft-deleted by the app or by an uninstall (D14); a cohort's price sets and widget configs,
 * one per (context, variantKey, type), deleted for good.
 *
 * A context's override columns mirror merchant_settings and are null where the value is
 * inherited from the merchant.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table partner_contexts (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      client_id text not null references apps (client_id) on delete cascade,
      name text not null check (char_length(name) between 1 and 128),
      enable_cancel_after_purchase boolean,
      cancel_after_purchase_duration_seconds integer check (cancel_after_purchase_duration_seconds >= 0),
      send_confirmation_email boolean,
      send_sms_updates boolean,
      offer_store_credit_on_service_purchase boolean,
      store_credit_type text,
      store_credit_bonus numeric check (store_credit_bonus >= 0),
      store_credit_bonus_type text check (store_credit_bonus_type in ('flat', 'percentage')),
      store_credit_max_percentage numeric check (store_credit_max_percentage between 0 and 100),
      created_at timestamptz not null default now(),
      updated_at timestamptz,
      deleted_at timestamptz
    );
    create unique index partner_contexts_live_key on partner_contexts (store_id, client_id) where deleted_at is null;

    create table cohort_price_sets (
      id text primary key,
      context_id text not null references partner_contexts (id) on delete cascade,
      variant_key text not null,
      type text not null check (type in ('SHIPPING', 'EXTENDED_WARRANTY')),
      automatically_add_to_cart boolean not null default false,
      auto_add_state_block_list text[] not null default '{}',
      auto_add_country_block_list text[] not null default '{}',
      rules jsonb not null default '[]',
      updated_by_application_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index cohort_price_sets_key on cohort_price_sets (context_id, variant_key, type);

    create table cohort_widget_configs (
      id text primary key,
      context_id text not null references partner_contexts (id) on delete cascade,
      variant_key text not null,
      type text not null check (type in ('CHECKOUT', 'CART', 'INFO_MODAL')),
      status text not null,
      variant text,
      name text,
      config jsonb not null default '{}',
      updated_by_application_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index cohort_widget_configs_key on cohort_widget_configs (context_id, variant_key, type);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table cohort_widget_configs;
    drop table cohort_price_sets;
    drop table partner_contexts;
  `.execute(db);
}

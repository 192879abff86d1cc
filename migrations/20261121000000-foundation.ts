import { type Kysely, sql } from 'kysely';

/**
 * Stores (D7) and what each store starts with (D30): merchant settings, one pricing rule set
 * and one widget config of each type. Dashboard users (D8) and their store memberships.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table stores (
      id text primary key,
      name text not null check (char_length(name) between 1 and 255),
      domain text not null check (domain = lower(domain)),
      currency char(3) not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index stores_domain_key on stores (domain);

    create table dashboard_users (
      id text primary key,
      email text not null check (email = lower(email)),
      password_hash text not null,
      first_name text,
      last_name text,
      created_at timestamptz not null default now()
    );
    create unique index dashboard_users_email_key on dashboard_users (email);

    create table store_members (
      store_id text not null references stores (id) on delete cascade,
      user_id text not null references dashboard_users (id) on delete cascade,
      created_at timestamptz not null default now(),
      primary key (store_id, user_id)
    );
    create index store_members_user_idx on store_members (user_id);

    create table merchant_settings (
      store_id text primary key references stores (id) on delete cascade,
      enable_cancel_after_purchase boolean not null,
      cancel_after_purchase_duration_seconds integer not null check (cancel_after_purchase_duration_seconds >= 0),
      send_confirmation_email boolean not null,
      send_sms_updates boolean not null,
      offer_store_credit_on_service_purchase boolean not null,
      store_credit_type text not null,
      store_credit_bonus numeric not null check (store_credit_bonus >= 0),
      store_credit_bonus_type text not null check (store_credit_bonus_type in ('flat', 'percentage')),
      store_credit_max_percentage numeric not null check (store_credit_max_percentage between 0 and 100),
      updated_by_application_id text,
      updated_at timestamptz not null default now()
    );

    create table pricing_rule_sets (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      type text not null check (type in ('SHIPPING', 'EXTENDED_WARRANTY')),
      automatically_add_to_cart boolean not null default false,
      auto_add_state_block_list text[] not null default '{}',
      auto_add_country_block_list text[] not null default '{}',
      rules jsonb not null default '[]',
      updated_by_application_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index pricing_rule_sets_merchant_key on pricing_rule_sets (store_id, type);

    create table widget_configs (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      type text not null check (type in ('CHECKOUT', 'CART', 'INFO_MODAL')),
      status text not null,
      variant text,
      name text not null,
      config jsonb not null default '{}',
      updated_by_application_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index widget_configs_merchant_key on widget_configs (store_id, type);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table widget_configs;
    drop table pricing_rule_sets;
    drop table merchant_settings;
    drop table store_members;
    drop table dashboard_users;
    drop table stores;
  `.execute(db);
}

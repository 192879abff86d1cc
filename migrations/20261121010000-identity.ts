import { type Kysely, sql } from 'kysely';

/**
 * Apps (D9), installations (D10, D14), authorization codes (D10), token families and refresh
 * tokens (D11, D12), the revocation feed every server process follows (D13), and the shared
 * rate-limit counters (D4). Secrets, codes and tokens are stored only as SHA-256 digests (D5);
 * the webhook secret, which the service must use itself, is encrypted with a key derived
 * from SECRET_KEY.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table apps (
      client_id text primary key,
      owner_user_id text not null references dashboard_users (id),
      name text not null,
      redirect_uris text[] not null,
      webhook_url text,
      webhook_topics text[] not null default '{}',
      requested_scopes text[] not null,
      distribution text not null check (distribution in ('public', 'private')),
      pricing_approved boolean not null default false,
      client_secret_hash text not null,
      webhook_secret_ciphertext text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index apps_owner_idx on apps (owner_user_id);

    create table installations (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      client_id text not null references apps (client_id) on delete cascade,
      scopes text[] not null,
      installed_by_user_id text references dashboard_users (id),
      installed_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      uninstalled_at timestamptz
    );
    create unique index installations_active_key on installations (store_id, client_id) where uninstalled_at is null;
    create index installations_client_idx on installations (client_id);

    -- A token family: every access and refresh token descended from one code, one login or
    -- one client-credentials issuance (D12). kind: oauth | dashboard.
    create table grants (
      id text primary key,
      kind text not null check (kind in ('oauth', 'dashboard')),
      client_id text references apps (client_id) on delete cascade,
      store_id text references stores (id) on delete cascade,
      installation_id text references installations (id) on delete cascade,
      user_id text references dashboard_users (id) on delete cascade,
      scopes text[] not null default '{}',
      created_at timestamptz not null default now(),
      revoked_at timestamptz,
      revoked_reason text
    );

    create table authorization_codes (
      code_hash text primary key,
      client_id text not null references apps (client_id) on delete cascade,
      store_id text not null references stores (id) on delete cascade,
      user_id text not null references dashboard_users (id) on delete cascade,
      installation_id text not null references installations (id) on delete cascade,
      redirect_uri text not null,
      scopes text[] not null,
      code_challenge text,
      expires_at timestamptz not null,
      used_at timestamptz,
      grant_id text references grants (id) on delete set null,
      created_at timestamptz not null default now()
    );

    create table refresh_tokens (
      token_hash text primary key,
      grant_id text not null references grants (id) on delete cascade,
      scopes text[] not null default '{}',
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      retired_at timestamptz
    );
    create index refresh_tokens_grant_idx on refresh_tokens (grant_id);

    -- Append-only: each process reads new rows every few hundred milliseconds, so a
    -- revocation reaches every process within a second without a lookup per request (D13).
    create table revocations (
      id bigserial primary key,
      kind text not null check (kind in ('token', 'grant', 'installation')),
      subject text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null
    );
    create index revocations_created_idx on revocations (created_at);

    create table rate_limit_counters (
      key text not null,
      window_start timestamptz not null,
      count integer not null,
      primary key (key, window_start)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table rate_limit_counters;
    drop table revocations;
    drop table refresh_tokens;
    drop table authorization_codes;
    drop table grants;
    drop table installations;
    drop table apps;
  `.execute(db);
}

import { type Kysely, sql } from 'kysely';

/**
 * Dated API versions (D44):
 * - `partner_contexts.legacy_variant_key`: the `variantKey` a 2025-01-01 client created its
 *   context with, kept by the version layer beside the context (null: created on a later
 *   version, read as `default` there);
 * - `webhook_deliveries.api_version`: the receiving app's pinned version when the delivery
 *   was recorded, so that every attempt renders the same bytes, whatever the pin becomes
 *   (null: recorded before versions, rendered as the latest);
 * - `api_version_calls`: calls per app, version and day, for the app's API health report.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table partner_contexts add column legacy_variant_key text;
    alter table webhook_deliveries add column api_version text;
    create table api_version_calls (
      client_id text not null,
      api_version text not null,
      day date not null,
      calls bigint not null,
      last_call_at timestamptz not null,
      primary key (client_id, api_version, day)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table api_version_calls;
    alter table webhook_deliveries drop column api_version;
    alter table partner_contexts drop column legacy_variant_key;
  `.execute(db);
}

import { type Kysely, sql } from 'kysely';

/**
 * Two app settings its owner changes with `PATCH /v1/apps/:clientId`: the dated API version
 * the app is pinned to (D44; apps registered before versions existed were built against the
 * first dated version, `2026-12-01`, and registration sets the latest from now on), and the
 * URL that receives the events of the app's test stores (D45), none until it is set.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table apps
      add column api_version text not null default '2026-12-01',
      add column test_webhook_url text
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table apps drop column api_version, drop column test_webhook_url`.execute(db);
}

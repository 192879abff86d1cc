import { type Kysely, sql } from 'kysely';

/**
 * Store changes (D29) are announced after their commit, not inside it. A NOTIFY in a
 * transaction makes its commit take PostgreSQL's cluster-wide notification lock through the
 * WAL flush, so such commits ran one after another. Now the write adds a row here in its
 * transaction; after the commit its process notifies the listeners (the fast path), and every
 * process also reads the rows of the last moments once a second, so a change whose process
 * died between commit and notification still reaches every cache within about a second.
 * Rows older than an hour serve no one and are deleted by the readers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table store_changes (
      id bigint generated always as identity primary key,
      store_id text not null,
      created_at timestamptz not null default now()
    );
    create index store_changes_created_idx on store_changes (created_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table store_changes`.execute(db);
}

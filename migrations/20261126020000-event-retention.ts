import { type Kysely, sql } from 'kysely';

/**
 * Retention of webhook events (D48): the delivering processes delete, oldest first, the events
 * older than `EVENT_RETENTION_DAYS` whose deliveries are all final. Event ids are random, so
 * the oldest are found through an index on their creation time; without it every prune would
 * read the whole table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_events_created_idx on webhook_events (created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_events_created_idx`.execute(db);
}

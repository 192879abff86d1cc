import { type Kysely, sql } from 'kysely';

/**
 * The trace of the change that recorded a webhook event (its W3C `traceparent`), when tracing
 * was on: each delivery's attempts are spans of that trace, so an operator follows a request
 * to the webhooks it caused. Null for events recorded with tracing off.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_events add column traceparent text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_events drop column traceparent`.execute(db);
}

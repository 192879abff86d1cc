import { type Kysely, sql } from 'kysely';

/**
 * The trace of the change that wrote a message of the mail outbox (its W3C `traceparent`),
 * when tracing was on: each attempt to send it is a span of that trace, as a webhook
 * delivery's is of its event's, so an operator follows a request to the e-mails it caused.
 * Null for messages written with tracing off.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table mail_messages add column traceparent text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table mail_messages drop column traceparent`.execute(db);
}

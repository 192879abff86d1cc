import { type Kysely, sql } from 'kysely';

/**
 * The store audit log (D53): who did what, one row per store the act concerns, written in the
 * transaction of the change. Read newest first by keyset (`at`, `id`) per store, so one index
 * serves every page; the actor and action filters narrow that scan.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table audit_events (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      at timestamptz not null default clock_timestamp(),
      actor_type text not null check (actor_type in ('user', 'app')),
      actor_id text not null,
      actor_email text,
      action text not null,
      target_type text not null,
      target_id text not null,
      changes jsonb,
      ip text,
      user_agent text,
      request_id text
    );
    create index audit_events_store_at_idx on audit_events (store_id, at desc, id desc);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table audit_events`.execute(db);
}

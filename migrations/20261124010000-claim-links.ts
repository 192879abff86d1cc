import { type Kysely, sql } from 'kysely';

/**
 * D41: every claim gets the random half of its shopper link, `link_id` (244 random bits from
 * two version-4 UUIDs). The link itself is `link_id` followed by a MAC under a key derived
 * from SECRET_KEY (server/src/domain/claims/links.ts): the database never holds a usable
 * link. A volatile default is evaluated per row, so the rewrite of this statement gives every
 * existing claim its own link, and claims filed later get one without any code naming it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table claims
      add column link_id text not null default replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
    create unique index claims_link_id_idx on claims (link_id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table claims drop column link_id`.execute(db);
}

import { type Kysely, sql } from 'kysely';

/**
 * One index of a store's claims by shopper e-mail: `claims_store_email_time_idx` (store, e-mail,
 * filing time), added for D57's repeat claimer, serves the claim search by e-mail (D51) as well,
 * so the older `claims_store_email_idx` on (store, e-mail) is only a cost on every claim write.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index claims_store_email_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index claims_store_email_idx on claims (store_id, lower(author_email))`.execute(db);
}

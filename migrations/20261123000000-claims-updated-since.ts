import { type Kysely, sql } from 'kysely';

/**
 * `GET /v1/claims?updatedAtMin=…` (D24) pages in `(created_at, id)` order like every list, but
 * `updated_at` was in no index: each row the keyset scan passed was fetched from the table
 * only to be dropped by the filter. With `updated_at` as the last column of the page index,
 * the filter is checked on the index entries themselves, so a filtered page costs about what
 * an unfiltered one does at any depth. It replaces `claims_store_page_idx` (the same leading
 * columns), so filing a claim maintains no extra index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index claims_store_page_updated_idx on claims (store_id, created_at, id, updated_at);
    drop index claims_store_page_idx;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create index claims_store_page_idx on claims (store_id, created_at, id);
    drop index claims_store_page_updated_idx;
  `.execute(db);
}

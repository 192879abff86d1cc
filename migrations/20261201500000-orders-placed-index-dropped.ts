import { type Kysely, sql } from 'kysely';

/**
 * `orders_store_placed_idx` served the store's figures (D52) while they counted a store's orders
 * by the day they were placed; the figures read the day rollups since, and no statement reads
 * orders by store and placing day. Every order write still paid it an index entry.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index orders_store_placed_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create index orders_store_placed_idx on orders (store_id, source_created_at) include (currency)
      where deleted_at is null
  `.execute(db);
}

import { type Kysely, sql } from 'kysely';

/**
 * The store's figures (D52) read a store's orders by the day the shop placed them: without this
 * index every summary read all the store's orders.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index orders_store_placed_idx on orders (store_id, source_created_at) include (currency) where deleted_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index orders_store_placed_idx`.execute(db);
}

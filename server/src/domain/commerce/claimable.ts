import { type RawBuilder, sql } from 'kysely';

/**
 * D39: a claim whose outcome was a refusal frees its quantity: it is `DENIED` or `DISMISSED`,
 * or `CLOSED` or `ARCHIVED` after one of those. D22 lets a claim leave `DENIED` and `DISMISSED`
 * only towards `CLOSED` and then `ARCHIVED`, so a claim that ever entered either is refused.
 * Over `claims c`.
 */
const refusedClaim = sql<boolean>`exists (
  select 1 from claim_state_changes sc where sc.claim_id = c.id and sc.to_state in ('DENIED', 'DISMISSED')
)`;

/** One line item of an order and what is left to claim of it (D39). */
export interface ClaimableItem {
  itemId: string;
  ordered: number;
  claimable: number;
}

/**
 * D39, the one definition of the claimable quantity: a row per line item of the order
 * `orderId` (an expression), or of its item `itemId` alone when given, with its ordered
 * quantity and what can still be claimed of it: the ordered quantity less the item's
 * quantities in the order's claims, refused ones excepted, never below 0. The claim filing
 * checks each item a claim names against it (`domain/claims/filing.ts`); the order reads answer
 * it for every item as `lineItems[].claimableQuantity` (D51). It sits with the orders, a
 * property of an order's line; the claims area builds on it.
 *
 * Read in a statement after the order's lock, its snapshot sees every claim committed before
 * the lock was granted; a claim written by the same statement is not in it, so does not count
 * itself.
 */
export function claimableItems(orderId: RawBuilder<unknown>, itemId?: RawBuilder<unknown>): RawBuilder<ClaimableItem> {
  return sql<ClaimableItem>`
    select li.source_item_id as item_id, li.quantity as ordered,
      greatest(0, li.quantity - coalesce(k.quantity, 0))::int as claimable
    from order_line_items li
    left join (
      select ci.item_id, sum(ci.quantity) as quantity
      from claims c join claim_items ci on ci.claim_id = c.id
      where c.order_id = ${orderId} and c.deleted_at is null and not ${refusedClaim}
        ${itemId ? sql`and ci.item_id = ${itemId}` : sql``}
      group by ci.item_id
    ) k on k.item_id = li.source_item_id
    where li.order_id = ${orderId} ${itemId ? sql`and li.source_item_id = ${itemId}` : sql``}
  `;
}

import { type RawBuilder, sql } from 'kysely';

/**
 * D39, the one definition of what an order's item may still be claimed for, in SQL: the claim
 * statement checks a new claim against it (`domain/claims/filing.ts`) and the order reads
 * answer it as `lineItems[].claimableQuantity` (D51), so the two never disagree. It sits with
 * the orders because it is a property of an order's line; the claims area builds on it.
 */

/**
 * A claim whose outcome was a refusal frees its quantity: it is `DENIED` or `DISMISSED`, or
 * `CLOSED` or `ARCHIVED` after one of those. D22 lets a claim leave `DENIED` and `DISMISSED`
 * only towards `CLOSED` and then `ARCHIVED`, so a claim that ever entered either is refused.
 * Over `claims c`.
 */
const refusedClaim = sql<boolean>`exists (
  select 1 from claim_state_changes sc where sc.claim_id = c.id and sc.to_state in ('DENIED', 'DISMISSED')
)`;

/**
 * Rows `(item_id, quantity)`: per item of the order `orderId` (an expression), the quantity its
 * claims hold, refused claims excepted; only the items of `itemIds` when given.
 */
export function claimedByItem(orderId: RawBuilder<unknown>, itemIds?: readonly string[]) {
  return sql<{ itemId: string; quantity: number }>`
    select ci.item_id, sum(ci.quantity)::int as quantity
    from claims c join claim_items ci on ci.claim_id = c.id
    where c.order_id = ${orderId} and c.deleted_at is null
      ${itemIds ? sql`and ci.item_id = any(${itemIds}::text[])` : sql``}
      and not ${refusedClaim}
    group by ci.item_id
  `;
}

/** What is left to claim of an item: its ordered quantity less what its claims hold (null: none), never below 0. */
export const leftToClaim = (ordered: RawBuilder<unknown>, claimed: RawBuilder<unknown>) =>
  sql<number>`greatest(0, ${ordered} - coalesce(${claimed}, 0))`;

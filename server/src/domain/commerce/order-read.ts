import type { TLineItem, TOrder } from '@protection-service/contract';
import { type Selectable, sql } from 'kysely';
import { type Db, prepared } from '../../db/database';
import type { OrdersTable } from '../../db/schema';
import { roundMoney } from '../../lib/money';
import { refuse } from '../../lib/refusal';

/** An order row as `readOrder` selects it: the table's columns plus items and latest policy. */
type OrderReadRow = Omit<Selectable<OrdersTable>, 'deletedAt'> & {
  lineItems: TLineItem[];
  policyId: string | null;
  policyRemovedAt: Date | null;
};

/**
 * `GET /v1/orders/:sourceOrderId` (D18): the live order with its line items and protection
 * (`ACTIVE` with the active policy, `REMOVED` with the last one, `NONE`), in one query.
 * Refused (404) when the store has no such live order.
 */
export async function readOrder(db: Db, storeId: string, sourceOrderId: string): Promise<TOrder> {
  const result = await prepared(sql<OrderReadRow>`
    select o.id, o.store_id, o.source_order_id, o.source_order_number, o.currency,
      o.policy_cancelled_at, o.original_source_order_id, o.source_created_at, o.source_updated_at,
      o.source_cancelled_at, o.platform_id, o.premium_paid, o.total, o.discount_total,
      o.shipping_cost, o.tax, o.subtotal, o.customer_email, o.customer_name, o.customer_phone,
      o.shipping_cost_tax, o.line_items_known, o.created_at, o.updated_at,
      coalesce((
        select json_agg(json_build_object(
          'sourceItemId', li.source_item_id, 'sourceProductId', li.source_product_id,
          'sourceVariantId', li.source_variant_id, 'name', li.name, 'sku', li.sku,
          'quantity', li.quantity, 'price', li.price, 'isShippable', li.is_shippable
        ) order by li.position)
        from order_line_items li where li.order_id = o.id
      ), '[]') as line_items,
      p.id as policy_id, p.removed_at as policy_removed_at
    from orders o
    left join lateral (
      select id, removed_at from protection_policies
      where order_id = o.id order by created_at desc, id desc limit 1
    ) p on true
    where o.store_id = ${storeId} and o.source_order_id = ${sourceOrderId} and o.deleted_at is null
  `).execute(db);
  const row = result.rows[0];
  if (!row) throw refuse.missing('order not found');
  const money = (v: number | null) => (v === null ? null : roundMoney(v, row.currency));
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  return {
    id: row.id,
    storeId: row.storeId,
    sourceOrderId: row.sourceOrderId,
    sourceOrderNumber: row.sourceOrderNumber,
    currency: row.currency,
    policyCancelledAt: iso(row.policyCancelledAt),
    originalSourceOrderId: row.originalSourceOrderId,
    sourceCreatedAt: row.sourceCreatedAt.toISOString(),
    sourceUpdatedAt: iso(row.sourceUpdatedAt),
    sourceCancelledAt: iso(row.sourceCancelledAt),
    platformId: row.platformId as TOrder['platformId'],
    premiumPaid: money(row.premiumPaid),
    total: roundMoney(row.total, row.currency),
    discountTotal: money(row.discountTotal),
    shippingCost: money(row.shippingCost),
    tax: money(row.tax),
    subtotal: money(row.subtotal),
    customerEmail: row.customerEmail,
    customerName: row.customerName,
    customerPhone: row.customerPhone,
    shippingCostTax: money(row.shippingCostTax),
    lineItems: row.lineItemsKnown ? row.lineItems.map((li) => ({ ...li, price: money(li.price) })) : null,
    protection: {
      status: row.policyId === null ? 'NONE' : row.policyRemovedAt === null ? 'ACTIVE' : 'REMOVED',
      policyId: row.policyId,
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

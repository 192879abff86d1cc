import type { TLineItem, TOrder, TOrderConnection, TOrderListQuery, TOrderOffer } from '@protection-service/contract';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import { type Db, prepared } from '../../db/database';
import type { OrdersTable } from '../../db/schema';
import { roundMoney } from '../../lib/money';
import { type KeysetPager, keyset, type PageRange } from '../../lib/pager';
import { refuse } from '../../lib/refusal';
import { claimableItems } from './claimable';

/** An order row as `readOrder` selects it: the table's columns plus items and latest policy. */
type OrderReadRow = Omit<Selectable<OrdersTable>, 'deletedAt'> & {
  lineItems: TLineItem[];
  policyId: string | null;
  policyRemovedAt: Date | null;
  /** D55: the offer the shopper saw and chose, when the order carried one. */
  offer: OfferJson | null;
  /** The row's keyset position with microseconds (lib/pager.ts). */
  keysetAt: string;
};

/** The order offer as the select builds it (JSON: times and amounts as text). */
interface OfferJson {
  amount: number;
  currency: string;
  widgetConfigId: string | null;
  widgetConfigUpdatedAt: string | null;
  partnerApplicationId: string | null;
  partnerVariantKey: string | null;
  preselected: boolean;
  selected: boolean;
  decidedAt: string;
}

/** The keyset of the order list (D51). */
const ORDERS = keyset('o.created_at', 'o.id');

/**
 * The select of live orders with their line items (each with what is left to claim of it,
 * D39, from the definition the claim statement checks against) and latest policy; `where`
 * and `tail` (order, limit) complete it.
 */
function orderSelect(where: RawBuilder<unknown>, tail: RawBuilder<unknown> = sql``) {
  return sql<OrderReadRow>`
    select o.id, o.store_id, o.source_order_id, o.source_order_number, o.currency,
      o.policy_cancelled_at, o.original_source_order_id, o.source_created_at, o.source_updated_at,
      o.source_cancelled_at, o.platform_id, o.premium_paid, o.total, o.discount_total,
      o.shipping_cost, o.tax, o.subtotal, o.customer_email, o.customer_name, o.customer_phone,
      o.shipping_cost_tax, o.line_items_known, o.created_at, o.updated_at,
      ${ORDERS.position} as keyset_at,
      coalesce((
        select json_agg(json_build_object(
          'sourceItemId', li.source_item_id, 'sourceProductId', li.source_product_id,
          'sourceVariantId', li.source_variant_id, 'name', li.name, 'sku', li.sku,
          'quantity', li.quantity, 'price', li.price, 'isShippable', li.is_shippable,
          'claimableQuantity', k.claimable
        ) order by li.position)
        from order_line_items li
        join (${claimableItems(sql`o.id`)}) k on k.item_id = li.source_item_id
        where li.order_id = o.id
      ), '[]') as line_items,
      p.id as policy_id, p.removed_at as policy_removed_at,
      (select json_build_object(
          'amount', f.amount, 'currency', f.currency, 'widgetConfigId', f.widget_config_id,
          'widgetConfigUpdatedAt', f.widget_config_updated_at, 'partnerApplicationId', f.partner_application_id,
          'partnerVariantKey', f.partner_variant_key, 'preselected', f.preselected, 'selected', f.selected,
          'decidedAt', f.decided_at)
        from order_offers f where f.order_id = o.id) as offer
    from orders o
    left join lateral (
      select id, removed_at from protection_policies
      where order_id = o.id order by created_at desc, id desc limit 1
    ) p on true
    where o.deleted_at is null and ${where}
    ${tail}
  `;
}

const isoOf = (t: string) => new Date(t).toISOString();

/**
 * D55: the order's offer record; it matches the policy when the shopper selected it and the
 * order is protected (D19) at the amount shown, or did not and the order is not protected.
 */
function toOffer(row: OrderReadRow): TOrderOffer | null {
  const f = row.offer;
  if (f === null) return null;
  const amount = roundMoney(Number(f.amount), f.currency);
  const premium = row.premiumPaid ?? 0;
  const protectedOrder = premium > 0 && row.policyCancelledAt === null;
  const matchesPolicy = f.selected
    ? protectedOrder && row.currency === f.currency && roundMoney(premium, row.currency) === amount
    : !protectedOrder;
  return {
    amount,
    currency: f.currency,
    widgetConfigId: f.widgetConfigId,
    widgetConfigUpdatedAt: f.widgetConfigUpdatedAt === null ? null : isoOf(f.widgetConfigUpdatedAt),
    partnerApplicationId: f.partnerApplicationId,
    partnerVariantKey: f.partnerVariantKey,
    preselected: f.preselected,
    selected: f.selected,
    decidedAt: isoOf(f.decidedAt),
    matchesPolicy,
  };
}

function toOrder(row: OrderReadRow): TOrder {
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
    offer: toOffer(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * `GET /v1/orders/:sourceOrderId` (D18): the live order with its line items (and what is left
 * to claim of each, D39, D51) and protection (`ACTIVE` with the active policy, `REMOVED` with
 * the last one, `NONE`), in one query. Refused (404) when the store has no such live order.
 */
export async function readOrder(db: Db, storeId: string, sourceOrderId: string): Promise<TOrder> {
  const result = await prepared(
    orderSelect(sql`o.store_id = ${storeId} and o.source_order_id = ${sourceOrderId}`),
  ).execute(db);
  const row = result.rows[0];
  if (!row) throw refuse.missing('order not found');
  return toOrder(row);
}

/** The order list's filters (D51). */
type OrderFilters = Omit<TOrderListQuery, 'first' | 'after' | 'last' | 'before'>;

/**
 * The keyset query of one page of the order list (lib/pager.ts). A search names orders by
 * their number or their customer's e-mail (in any case), each found through its index as an
 * array of keys, so the page reads those few orders and sorts them, whatever the store holds.
 */
export function orderPageQuery(storeId: string, q: OrderFilters, range: PageRange) {
  const where = [sql`o.store_id = ${storeId}`];
  if (q.q)
    where.push(sql`o.id = any(array(
      select id from orders where store_id = ${storeId} and source_order_number = ${q.q}
      union
      select id from orders where store_id = ${storeId} and lower(customer_email) = lower(${q.q})
    ))`);
  if (q.createdAtMin) where.push(sql`o.created_at >= ${q.createdAtMin}::timestamptz`);
  if (q.createdAtMax) where.push(sql`o.created_at <= ${q.createdAtMax}::timestamptz`);
  where.push(...ORDERS.bounds(range));
  return orderSelect(sql.join(where, sql` and `), ORDERS.order(range));
}

/**
 * `GET /v1/orders` (D51): one keyset page of the store's live orders, newest first by
 * `(createdAt, id)`, its cursors bound to the store and the filters.
 */
export function listOrders(db: Db, pager: KeysetPager, storeId: string, q: TOrderListQuery): Promise<TOrderConnection> {
  if (q.createdAtMin && q.createdAtMax && new Date(q.createdAtMin) > new Date(q.createdAtMax))
    throw refuse.issues([{ path: 'query.createdAtMax', message: 'must not be before createdAtMin' }]);
  const time = (t: string | undefined) => (t ? new Date(t).toISOString() : null);
  const binding = JSON.stringify(['orders', storeId, q.q ?? null, time(q.createdAtMin), time(q.createdAtMax)]);
  return pager.page(q, binding, {
    rows: async (range) => (await orderPageQuery(storeId, q, range).execute(db)).rows,
    position: (row) => ({ createdAt: row.keysetAt, id: row.id }),
    nodes: (rows) => rows.map(toOrder),
    descending: true,
  });
}

import type { TLineItemWrite, TOrderWrite, WebhookBodies } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import { type Db, prepared } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { roundMoney } from '../../lib/money';
import { refuse } from '../../lib/refusal';
import { eventSteps, queueAfterCommit, recordEvent } from '../webhooks/record';
import { type OrderOffer, offerUpsert } from './order-offers';

type RemovalReason = 'CANCELLED' | 'PREMIUM_REMOVED' | 'ORDER_DELETED';

interface PolicyChange {
  orderId: string;
  added: { id: string; premiumPaid: number } | null;
  removed: { id: string; premiumPaid: number; removedAt: Date } | null;
}

/**
 * D19: protection is active while `premiumPaid > 0` and `policyCancelledAt` is null. When it
 * is not, the reason a policy that was active ends.
 */
function protectionOf(order: Pick<TOrderWrite, 'premiumPaid' | 'policyCancelledAt'>): RemovalReason | null {
  if (order.policyCancelledAt != null) return 'CANCELLED';
  if (!(order.premiumPaid != null && order.premiumPaid > 0)) return 'PREMIUM_REMOVED';
  return null;
}

/**
 * `PUT /v1/orders/:sourceOrderId` (D18, D19): creates the order or replaces it whole, its line
 * items with it, and moves its protection policy, atomically with the `protection/added` or
 * `protection/removed` event it causes (D32).
 *
 * A new order is one statement, and so one round trip without a transaction: order, line
 * items, first policy, event and deliveries (`insertNewOrder`). When the order exists (or the
 * statement cannot tell, as when `originalSourceOrderId` names no order) the write is a
 * transaction whose first statement upserts the order row and so holds its row lock until
 * commit; a second statement, whose fresh snapshot is taken after the lock, moves line items
 * and the policy, so concurrent PUTs of one order see each other's committed policy, and
 * re-sending an order changes no policy and records nothing. Policy times are
 * `clock_timestamp()`, taken under that lock, so they order policies the way the order's
 * writes committed (a transaction's `now()` is its start, which races do not order).
 */
export async function upsertOrder(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  order: TOrderWrite,
  /** D55: the offer the order carries, its token verified (./order-offers.ts); undefined keeps the recorded one. */
  offer?: OrderOffer,
): Promise<void> {
  const ended = protectionOf(order);
  if (await insertNewOrder(db, storeId, sourceOrderId, order, ended === null, offer)) return;
  return transact(db, async (trx) => {
    const written = await writeOrderRow(trx, storeId, sourceOrderId, order, ended === null);
    if (!written) throw refuse.missing('original order not found');
    if (offer) await offerUpsert(sql`${written.id}`, storeId, order.sourceCreatedAt, offer, sql``).execute(trx);
    const change: PolicyChange = written.inserted
      ? {
          orderId: written.id,
          added: written.addedPolicyId ? { id: written.addedPolicyId, premiumPaid: order.premiumPaid ?? 0 } : null,
          removed: null,
        }
      : await syncItemsAndPolicy(trx, storeId, written.id, order, ended);
    await recordPolicyEvent(trx, storeId, sourceOrderId, order.currency, change, ended);
  });
}

/**
 * A new order in one autocommit statement, with its line items and, when `protect`, its
 * first policy and the `protection/added` event with its deliveries; their jobs are queued
 * once it has committed. False, having written nothing, when the store has a live order of
 * that id already (or the original order is missing): the caller takes the general path.
 */
async function insertNewOrder(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  o: TOrderWrite,
  protect: boolean,
  offer: OrderOffer | undefined,
): Promise<boolean> {
  const orderId = newId('ord');
  const policyId = newId('pol');
  const items = o.lineItems ?? [];
  const event = protect
    ? eventSteps(
        {
          storeId,
          topic: 'protection/added',
          body: protectionBody(
            { orderId, sourceOrderId, storeId, policyId, premiumPaid: o.premiumPaid ?? 0 },
            o.currency,
          ),
        },
        sql`added`,
      )
    : undefined;
  const result = await prepared(sql<{ id: string | null; subscribers: string[] }>`
    with o as (
      ${orderInsert(orderId, storeId, sourceOrderId, o)}
      on conflict (store_id, source_order_id) where deleted_at is null do nothing
      returning o.id, true as inserted
    )
    ${items.length === 0 ? sql`` : sql`, new_items as (${insertItems(sql`o.id`, items, sql`from o cross join`, sql``)})`}
    ${offer ? sql`, new_offer as (${offerUpsert(sql`o.id`, storeId, o.sourceCreatedAt, offer, sql`from o`)})` : sql``}
    ${
      event
        ? sql`, added as (
            insert into protection_policies (${POLICY_COLUMNS})
            select ${policyValues(policyId, storeId, sql`o.id`, o)} from o
            returning id
          ), ${event.steps}
          select (select id from o), array(select client_id from fanned) as subscribers`
        : sql`select (select id from o), '{}'::text[] as subscribers`
    }
  `).execute(db);
  const row = result.rows[0]!;
  if (row.id === null) return false;
  if (event) queueAfterCommit(db, event.id, row.subscribers);
  return true;
}

/** `insert into orders … select …` of the order `o`, without its conflict clause. */
function orderInsert(orderId: string, storeId: string, sourceOrderId: string, o: TOrderWrite) {
  const original = o.originalSourceOrderId ?? null;
  return sql`
    insert into orders as o (
      id, store_id, source_order_id, source_order_number, currency, policy_cancelled_at,
      original_source_order_id, source_created_at, source_updated_at, source_cancelled_at,
      platform_id, premium_paid, total, discount_total, shipping_cost, tax, subtotal,
      customer_email, customer_name, customer_phone, shipping_cost_tax, line_items_known
    )
    select ${orderId}, ${storeId}, ${sourceOrderId}, ${o.sourceOrderNumber}, ${o.currency},
      ${o.policyCancelledAt ?? null}::timestamptz, ${original}, ${o.sourceCreatedAt}::timestamptz,
      ${o.sourceUpdatedAt ?? null}::timestamptz, ${o.sourceCancelledAt ?? null}::timestamptz,
      ${o.platformId}, ${o.premiumPaid ?? null}::numeric, ${o.total}::numeric,
      ${o.discountTotal ?? null}::numeric, ${o.shippingCost ?? null}::numeric, ${o.tax ?? null}::numeric,
      ${o.subtotal ?? null}::numeric, ${o.customerEmail ?? null}, ${o.customerName ?? null},
      ${o.customerPhone ?? null}, ${o.shippingCostTax ?? null}::numeric, ${o.lineItems != null}
    ${
      original === null
        ? sql``
        : sql`where exists (
            select 1 from orders
            where store_id = ${storeId} and source_order_id = ${original} and deleted_at is null
          )`
    }`;
}

/**
 * The order row upsert; when it inserts, the new order's line items and (when `protect`) its
 * first policy too. Undefined when `originalSourceOrderId` names no live order of the store
 * (D18: 404): the `where exists` makes that check part of the same statement.
 */
async function writeOrderRow(
  trx: Db,
  storeId: string,
  sourceOrderId: string,
  o: TOrderWrite,
  protect: boolean,
): Promise<{ id: string; inserted: boolean; addedPolicyId: string | null } | undefined> {
  const items = o.lineItems ?? [];
  const result = await prepared(sql<{ id: string; inserted: boolean; addedPolicyId: string | null }>`
    with o as (
    ${orderInsert(newId('ord'), storeId, sourceOrderId, o)}
    on conflict (store_id, source_order_id) where deleted_at is null do update set
      source_order_number = excluded.source_order_number, currency = excluded.currency,
      policy_cancelled_at = excluded.policy_cancelled_at,
      original_source_order_id = excluded.original_source_order_id,
      source_created_at = excluded.source_created_at, source_updated_at = excluded.source_updated_at,
      source_cancelled_at = excluded.source_cancelled_at, platform_id = excluded.platform_id,
      premium_paid = excluded.premium_paid, total = excluded.total,
      discount_total = excluded.discount_total, shipping_cost = excluded.shipping_cost,
      tax = excluded.tax, subtotal = excluded.subtotal, customer_email = excluded.customer_email,
      customer_name = excluded.customer_name, customer_phone = excluded.customer_phone,
      shipping_cost_tax = excluded.shipping_cost_tax, line_items_known = excluded.line_items_known,
      updated_at = now()
    returning o.id, (o.xmax = 0) as inserted
    )${items.length === 0 ? sql`` : sql`, new_items as (${insertItems(sql`o.id`, items, sql`from o cross join`, sql`where o.inserted`)})`}
    ${
      protect
        ? sql`, added as (
            insert into protection_policies (${POLICY_COLUMNS})
            select ${policyValues(newId('pol'), storeId, sql`o.id`, o)} from o where o.inserted
            returning id
          )
          select o.id, o.inserted, (select id from added) as added_policy_id from o`
        : sql`select o.id, o.inserted, null::text as added_policy_id from o`
    }
  `).execute(trx);
  return result.rows[0];
}

const POLICY_COLUMNS = sql.raw(
  'id, store_id, order_id, premium_paid, premium_currency, customer_amount, insured_amount, created_at, updated_at',
);

/** A new policy of the order (D19): funded by the customer, insuring the order total. */
function policyValues(id: string, storeId: string, orderId: RawBuilder<unknown>, o: TOrderWrite) {
  return sql`${id}, ${storeId}, ${orderId}, ${o.premiumPaid}::numeric, ${o.currency},
    ${o.premiumPaid}::numeric, ${o.total}::numeric, clock_timestamp(), clock_timestamp()`;
}

/**
 * The second statement of a write of an existing order: replaces the line items and moves the
 * policy. `ended` null means protection is wanted: the active policy is created, or its
 * amounts follow the order when they changed; otherwise the active policy, if any, is removed
 * for that reason.
 */
async function syncItemsAndPolicy(
  trx: Db,
  storeId: string,
  orderId: string,
  o: TOrderWrite,
  ended: RemovalReason | null,
): Promise<PolicyChange> {
  const items = o.lineItems ?? [];
  const itemSteps = sql`
    deleted_items as (
      delete from order_line_items
      where order_id = ${orderId} and not (source_item_id = any (${items.map((i) => i.sourceItemId)}::text[]))
    ),
    ${items.length === 0 ? sql`` : sql`written_items as (${insertItems(sql`${orderId}`, items, sql`from`, sql``)}),`}
    placed_offer as (
      update order_offers set placed_at = ${o.sourceCreatedAt}::timestamptz
      where order_id = ${orderId} and placed_at is distinct from ${o.sourceCreatedAt}::timestamptz
    ),`;
  const policyStep =
    ended === null
      ? sql`
        added as (
          insert into protection_policies as p (${POLICY_COLUMNS})
          values (${policyValues(newId('pol'), storeId, sql`${orderId}`, o)})
          on conflict (order_id) where removed_at is null do update set
            premium_paid = excluded.premium_paid, premium_currency = excluded.premium_currency,
            customer_amount = excluded.customer_amount, insured_amount = excluded.insured_amount,
            updated_at = clock_timestamp()
          where (p.premium_paid, p.premium_currency, p.insured_amount)
            is distinct from (excluded.premium_paid, excluded.premium_currency, excluded.insured_amount)
          returning p.id, (p.xmax = 0) as created
        )
        select (select id from added where created) as added_id,
          null::text as removed_id, null::numeric as removed_premium, null::timestamptz as removed_at`
      : sql`
        removed as (${removePolicy(orderId, ended)})
        select null::text as added_id,
          removed.id as removed_id, removed.premium_paid as removed_premium, removed.removed_at
        from (select 1) one left join removed on true`;
  const statement = sql<{
    addedId: string | null;
    removedId: string | null;
    removedPremium: number | null;
    removedAt: Date | null;
  }>`with ${itemSteps} ${policyStep}`;
  const result = await prepared(statement).execute(trx);
  const row = result.rows[0]!;
  return {
    orderId,
    added: row.addedId ? { id: row.addedId, premiumPaid: o.premiumPaid ?? 0 } : null,
    removed: row.removedId ? { id: row.removedId, premiumPaid: row.removedPremium!, removedAt: row.removedAt! } : null,
  };
}

/**
 * Inserts (or, for an existing order, replaces) line items of the order `orderRef` names;
 * `from` joins what it needs (`from o cross join` inside the order upsert), `where` limits it.
 */
function insertItems(
  orderRef: RawBuilder<unknown>,
  items: readonly TLineItemWrite[],
  from: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
) {
  const col = <T>(pick: (i: TLineItemWrite, n: number) => T) => items.map(pick);
  return sql`
    insert into order_line_items as li (
      order_id, source_item_id, position, source_product_id, source_variant_id, name, sku,
      quantity, price, is_shippable
    )
    select ${orderRef}, u.* ${from} unnest(
      ${col((i) => i.sourceItemId)}::text[], ${col((_, n) => n)}::int[],
      ${col((i) => i.sourceProductId ?? null)}::text[], ${col((i) => i.sourceVariantId ?? null)}::text[],
      ${col((i) => i.name ?? null)}::text[], ${col((i) => i.sku ?? null)}::text[],
      ${col((i) => i.quantity)}::int[], ${col((i) => i.price ?? null)}::numeric[],
      ${col((i) => i.isShippable ?? null)}::boolean[]
    ) as u ${where}
    on conflict (order_id, source_item_id) do update set
      position = excluded.position, source_product_id = excluded.source_product_id,
      source_variant_id = excluded.source_variant_id, name = excluded.name, sku = excluded.sku,
      quantity = excluded.quantity, price = excluded.price, is_shippable = excluded.is_shippable`;
}

function removePolicy(orderId: string, reason: RemovalReason) {
  return sql`
    update protection_policies set
      removed_at = clock_timestamp(), removal_reason = ${reason}, updated_at = clock_timestamp()
      ${reason === 'ORDER_DELETED' ? sql`, deleted_at = clock_timestamp()` : sql``}
    where order_id = ${orderId} and removed_at is null
    returning id, premium_paid, removed_at`;
}

/** A policy's part of a protection event, the one body of `protection/added` (and the start of `protection/removed`). */
function protectionBody(
  p: { orderId: string; sourceOrderId: string; storeId: string; policyId: string; premiumPaid: number },
  currency: string,
): WebhookBodies['protection/added'] {
  return {
    orderId: p.orderId,
    sourceOrderId: p.sourceOrderId,
    storeId: p.storeId,
    policyId: p.policyId,
    premiumPaid: roundMoney(p.premiumPaid, currency),
    currency,
  };
}

/** Records `protection/added` or `protection/removed` (D19) in the order's transaction (D32). */
async function recordPolicyEvent(
  trx: Db,
  storeId: string,
  sourceOrderId: string,
  currency: string,
  change: PolicyChange,
  reason: RemovalReason | null,
): Promise<void> {
  if (change.added) {
    await recordEvent(trx, {
      storeId,
      topic: 'protection/added',
      body: protectionBody(
        {
          orderId: change.orderId,
          sourceOrderId,
          storeId,
          policyId: change.added.id,
          premiumPaid: change.added.premiumPaid,
        },
        currency,
      ),
    });
  } else if (change.removed && reason) {
    await recordEvent(trx, {
      storeId,
      topic: 'protection/removed',
      body: {
        ...protectionBody(
          {
            orderId: change.orderId,
            sourceOrderId,
            storeId,
            policyId: change.removed.id,
            premiumPaid: change.removed.premiumPaid,
          },
          currency,
        ),
        removedAt: change.removed.removedAt.toISOString(),
        reason,
      },
    });
  }
}

/**
 * `DELETE /v1/orders/:sourceOrderId` (D18, D19): soft-deletes the live order, then removes its
 * active policy (reason `ORDER_DELETED`) and records `protection/removed`, in one transaction.
 * The order row is locked by the first statement, so the policy statement sees every policy a
 * concurrent PUT committed. Deleting again answers `missing` (404), as for an unknown id.
 */
export async function deleteOrder(db: Db, storeId: string, sourceOrderId: string): Promise<void> {
  return transact(db, async (trx) => {
    const order = await trx
      .updateTable('orders')
      .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
      .where('storeId', '=', storeId)
      .where('sourceOrderId', '=', sourceOrderId)
      .where('deletedAt', 'is', null)
      .returning(['id', 'currency'])
      .executeTakeFirst();
    if (!order) throw refuse.missing('order not found');
    const removed = (await removePolicy(order.id, 'ORDER_DELETED').execute(trx)).rows[0] as
      | { id: string; premiumPaid: number; removedAt: Date }
      | undefined;
    await recordPolicyEvent(
      trx,
      storeId,
      sourceOrderId,
      order.currency,
      { orderId: order.id, added: null, removed: removed ?? null },
      'ORDER_DELETED',
    );
  });
}

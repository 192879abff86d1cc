import type { TFulfillment, TFulfillmentStatus, TFulfillmentWrite } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { trackFulfillment } from '../tracking/ingest';
import { lockLiveOrder } from './live-order';

/**
 * `PUT /v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId` (D20): creates or replaces
 * one fulfillment of a live order. When the order's line items are known, every
 * `sourceItemIds` entry must name one of them (`unknownItems`: the offending indexes, 400).
 * The order row is share-locked for the check, so a concurrent order PUT cannot swap the line
 * items between check and write. A cancelled fulfillment stays cancelled: `cancelledAt` is not
 * part of the body, only DELETE sets it.
 */
export async function upsertFulfillment(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  sourceFulfillmentId: string,
  f: TFulfillmentWrite,
): Promise<void> {
  const items = f.sourceItemIds ?? [];
  return transact(db, async (trx) => {
    const order = await lockLiveOrder(trx, storeId, sourceOrderId, 'share');
    if (!order) throw refuse.missing('order not found');
    const unknown = order.lineItemsKnown
      ? (
          await sql<{ at: number }>`
            select n - 1 as at
            from unnest(${items.map((i) => i.sourceItemId)}::text[]) with ordinality as w (item, n)
            where not exists (
              select 1 from order_line_items li where li.order_id = ${order.id} and li.source_item_id = w.item
            )
            order by n
          `.execute(trx)
        ).rows.map((r) => Number(r.at))
      : [];
    if (unknown.length > 0) {
      throw refuse.issues(
        unknown.map((i) => ({ path: `body.sourceItemIds.${i}.sourceItemId`, message: 'not a line item of the order' })),
      );
    }
    // D54: a change of fulfillmentStatus is a tracking event; the old one is read under the lock.
    const previous = await trx
      .selectFrom('fulfillments')
      .select('fulfillmentStatus')
      .where('orderId', '=', order.id)
      .where('sourceFulfillmentId', '=', sourceFulfillmentId)
      .forUpdate()
      .executeTakeFirst();
    await trx
      .insertInto('fulfillments')
      .values({
        orderId: order.id,
        sourceFulfillmentId,
        fulfillmentStatus: f.fulfillmentStatus,
        sourceItemIds: JSON.stringify(items),
        trackingCompany: f.trackingCompany ?? null,
        trackingNumber: f.trackingNumber ?? [],
        trackingUrl: f.trackingUrl ?? [],
        createdAt: f.createdAt ?? sql<Date>`now()`,
        updatedAt: f.updatedAt ?? sql<Date>`now()`,
      })
      .onConflict((oc) =>
        oc.columns(['orderId', 'sourceFulfillmentId']).doUpdateSet((eb) => ({
          fulfillmentStatus: eb.ref('excluded.fulfillmentStatus'),
          sourceItemIds: eb.ref('excluded.sourceItemIds'),
          trackingCompany: eb.ref('excluded.trackingCompany'),
          trackingNumber: eb.ref('excluded.trackingNumber'),
          trackingUrl: eb.ref('excluded.trackingUrl'),
          // A replace without createdAt keeps the first one; updatedAt moves unless given.
          createdAt: f.createdAt ?? eb.ref('fulfillments.createdAt'),
          updatedAt: eb.ref('excluded.updatedAt'),
        })),
      )
      .execute();
    await trackFulfillment(
      trx,
      {
        storeId,
        livemode: (
          await trx.selectFrom('stores').select('livemode').where('id', '=', storeId).executeTakeFirstOrThrow()
        ).livemode,
        fulfillment: { orderId: order.id, sourceOrderId, sourceFulfillmentId },
      },
      {
        fulfillmentStatus: f.fulfillmentStatus,
        previousStatus: previous?.fulfillmentStatus ?? null,
        trackingNumbers: f.trackingNumber ?? [],
        carrier: f.trackingCompany ?? null,
        at: f.updatedAt ? new Date(f.updatedAt) : new Date(),
      },
    );
  });
}

/**
 * `GET /v1/orders/:sourceOrderId/fulfillments` (D20): every fulfillment of the live order,
 * cancelled ones included, oldest first. Refused (404) when the order is unknown.
 */
export async function listFulfillments(db: Db, storeId: string, sourceOrderId: string): Promise<TFulfillment[]> {
  const rows = await db
    .selectFrom('orders as o')
    .leftJoin('fulfillments as f', 'f.orderId', 'o.id')
    .select([
      'f.sourceFulfillmentId',
      'f.fulfillmentStatus',
      'f.sourceItemIds',
      'f.trackingCompany',
      'f.trackingNumber',
      'f.trackingUrl',
      'f.createdAt',
      'f.updatedAt',
      'f.cancelledAt',
    ])
    .where('o.storeId', '=', storeId)
    .where('o.sourceOrderId', '=', sourceOrderId)
    .where('o.deletedAt', 'is', null)
    .orderBy('f.createdAt')
    .orderBy('f.sourceFulfillmentId')
    .execute();
  if (rows.length === 0) throw refuse.missing('order not found');
  return rows.flatMap((r) =>
    r.sourceFulfillmentId === null
      ? []
      : [
          {
            sourceFulfillmentId: r.sourceFulfillmentId,
            sourceItemIds: r.sourceItemIds ?? [],
            fulfillmentStatus: r.fulfillmentStatus as TFulfillmentStatus,
            trackingCompany: r.trackingCompany,
            trackingNumber: r.trackingNumber ?? [],
            trackingUrl: r.trackingUrl ?? [],
            createdAt: r.createdAt!.toISOString(),
            updatedAt: r.updatedAt!.toISOString(),
            cancelledAt: r.cancelledAt?.toISOString() ?? null,
          },
        ],
  );
}

/**
 * `DELETE /v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId` (D20): marks it
 * cancelled. Repeating it keeps the first `cancelledAt`. Refused (404) when the order or the
 * fulfillment is unknown.
 */
export async function cancelFulfillment(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  sourceFulfillmentId: string,
): Promise<void> {
  const result = await sql`
    update fulfillments f set cancelled_at = coalesce(f.cancelled_at, now())
    from orders o
    where f.order_id = o.id and f.source_fulfillment_id = ${sourceFulfillmentId}
      and o.store_id = ${storeId} and o.source_order_id = ${sourceOrderId} and o.deleted_at is null
  `.execute(db);
  if ((result.numAffectedRows ?? 0n) === 0n) throw refuse.missing('fulfillment not found');
}

import type { TTrackingPackage } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { refuse } from '../../lib/refusal';

/** The live order and fulfillment a partner names (D20), or 404. */
export async function findFulfillment(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  sourceFulfillmentId: string,
): Promise<{ orderId: string; sourceOrderId: string; sourceFulfillmentId: string; livemode: boolean }> {
  const row = await db
    .selectFrom('orders as o')
    .innerJoin('fulfillments as f', 'f.orderId', 'o.id')
    .innerJoin('stores as s', 's.id', 'o.storeId')
    .select(['o.id as orderId', 's.livemode'])
    .where('o.storeId', '=', storeId)
    .where('o.sourceOrderId', '=', sourceOrderId)
    .where('o.deletedAt', 'is', null)
    .where('f.sourceFulfillmentId', '=', sourceFulfillmentId)
    .executeTakeFirst();
  if (!row) throw refuse.missing('order or fulfillment not found');
  return { orderId: row.orderId, sourceOrderId, sourceFulfillmentId, livemode: row.livemode };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

type DecisionJson = TTrackingPackage['decisions'][number];

/** The one answer shape of a package's decision (D54), for the package reads and the test helper's evaluation. */
export function decisionJson(d: Omit<DecisionJson, 'at' | 'asOf'> & { at: Date; asOf: Date }): DecisionJson {
  return {
    at: d.at.toISOString(),
    asOf: d.asOf.toISOString(),
    rule: d.rule,
    action: d.action,
    reason: d.reason,
    claimId: d.claimId,
  };
}

/** The packages of a fulfillment (D54): events and decisions newest first. */
export async function readPackages(db: Db, orderId: string, sourceFulfillmentId: string): Promise<TTrackingPackage[]> {
  const packages = await db
    .selectFrom('trackingPackages')
    .selectAll()
    .where('orderId', '=', orderId)
    .where('sourceFulfillmentId', '=', sourceFulfillmentId)
    .orderBy('createdAt')
    .orderBy('trackingNumber')
    .execute();
  if (packages.length === 0) return [];
  const ids = packages.map((p) => p.id);
  const [events, decisions] = await Promise.all([
    db
      .selectFrom('trackingEvents')
      .selectAll()
      .where('packageId', 'in', ids)
      .orderBy('occurredAt', 'desc')
      .orderBy('eventKey', 'desc')
      .execute(),
    db
      .selectFrom('trackingDecisions')
      .selectAll()
      .where('packageId', 'in', ids)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
  ]);
  return packages.map((p) => ({
    trackingNumber: p.trackingNumber,
    carrier: p.carrier,
    status: p.status,
    subStatus: p.subStatus,
    statusAt: iso(p.statusAt),
    lastScanAt: iso(p.lastScanAt),
    estimatedDeliveryAt: iso(p.estimatedDeliveryAt),
    deliveredAt: iso(p.deliveredAt),
    events: events
      .filter((e) => e.packageId === p.id)
      .map((e) => ({
        occurredAt: e.occurredAt.toISOString(),
        status: e.status,
        subStatus: e.subStatus,
        rawStatus: e.rawStatus,
        description: e.description,
        location: e.location,
        receivedAt: e.receivedAt.toISOString(),
      })),
    decisions: decisions.filter((d) => d.packageId === p.id).map(decisionJson),
  }));
}

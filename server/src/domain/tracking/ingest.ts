import type { TTrackingEventsBody, WebhookBodies } from '@protection-service/contract';
import { sql } from 'kysely';
import { writeInBatches } from '../../db/committed-batches';
import { type Db, prepared } from '../../db/database';
import { addJobs } from '../../db/jobs';
import { afterCommit } from '../../db/transact';
import { newId } from '../../lib/ids';
import { currentTraceparent } from '../../lib/tracing';
import { recordEvent } from '../webhooks/record';
import { packageState, type StateEvent } from './state';
import {
  eventKeyOf,
  isCarrierScanStatus,
  type NormalisedEvent,
  type NormalisedPackage,
  statusFromFulfillmentStatus,
} from './vocabulary';

/** D54: a number no fulfillment names yet is kept this long, then the retention drops it. */
export const UNBOUND_DAYS = 14;

/** The job that runs the rules on a package soon after its events changed (D54). */
export const EVALUATE_TASK = 'tracking.evaluate';

/** Where a package belongs: a fulfillment of a live order, or (unbound) only its store. */
export interface PackageOwner {
  storeId: string;
  livemode: boolean;
  fulfillment: { orderId: string; sourceOrderId: string; sourceFulfillmentId: string } | null;
}

/** A package row as the ingest reads it, locked for the transaction. */
export interface PackageRow {
  id: string;
  status: string;
  subStatus: string | null;
  carrier: string | null;
  estimatedDeliveryAt: Date | null;
  created: boolean;
}

/**
 * The one way events enter a package (D54), for every way they arrive: inside the caller's
 * transaction, the package row is taken (created when new) and locked, the events inserted
 * once each (a repeat does nothing), the state recomputed from all its events by when they
 * happened, and `tracking/updated` recorded only when status or subStatus changed. A
 * transaction rolled back records nothing. `locked`: the caller has already read and locked the
 * package's row. Answers the package id.
 */
export async function ingestPackage(
  trx: Db,
  owner: PackageOwner,
  pkg: NormalisedPackage,
  locked?: PackageRow,
): Promise<string> {
  const row = locked ?? (await takePackage(trx, owner, pkg.trackingNumber));
  const events = await eventsAfterInsert(trx, row.id, pkg.events);
  const state = packageState(events);
  const carrier = pkg.carrier ?? row.carrier;
  const estimatedDeliveryAt = pkg.estimatedDeliveryAt ?? row.estimatedDeliveryAt;
  await trx
    .updateTable('trackingPackages')
    .set({
      ...state,
      carrier,
      estimatedDeliveryAt,
      updatedAt: new Date(),
      ...(pkg.deliveryProof ? { deliveryProof: mergedProof(pkg.deliveryProof) } : {}),
    })
    .where('id', '=', row.id)
    .execute();
  const changed = state.status !== row.status || state.subStatus !== row.subStatus;
  if (changed && owner.fulfillment) {
    await recordEvent(trx, {
      storeId: owner.storeId,
      topic: 'tracking/updated',
      body: trackingUpdatedBody(
        owner.storeId,
        owner.fulfillment,
        { ...state, trackingNumber: pkg.trackingNumber, carrier, estimatedDeliveryAt },
        row.created ? null : row.status,
      ),
    });
  }
  if (owner.fulfillment && pkg.events.length > 0) queueEvaluation(trx, [row.id]);
  return row.id;
}

/**
 * D57: a proof of delivery the provider sent, over the one kept: each field it sent replaces
 * the kept one, a field it left out keeps it (a message without a proof keeps the whole proof),
 * so a signatory from the tracking results and a photo from a later proof message both stay.
 */
function mergedProof(proof: NonNullable<NormalisedPackage['deliveryProof']>) {
  const sent = JSON.stringify(proof);
  return sql<string>`jsonb_build_object(
    'signedBy', coalesce(${sent}::jsonb ->> 'signedBy', delivery_proof ->> 'signedBy'),
    'photoUrl', coalesce(${sent}::jsonb ->> 'photoUrl', delivery_proof ->> 'photoUrl'))`;
}

/**
 * D54: evaluation runs within a minute of an event. Its job is queued once the events'
 * transaction has committed, batched with those of other deliveries (a rolled-back change
 * queues nothing). Not inside it: the queue's notification would make every delivery's commit
 * wait on every other's (they serialize cluster-wide, as D32's delivery jobs would). A job a
 * crash or a failed batch leaves unqueued is the sweep's, within TRACKING_SWEEP_EVERY_MS.
 */
export function queueEvaluation(trx: Db, packageIds: readonly string[]): void {
  if (packageIds.length === 0) return;
  const traceparent = currentTraceparent();
  // Awaited before the change answers: its caller may rely on the evaluation being queued.
  afterCommit(trx, (db) =>
    writeInBatches(
      db,
      addEvaluationJobs,
      packageIds.map((packageId) => ({ packageId, traceparent })),
    ),
  );
}

/** A package to evaluate, with the trace of the change that asked (tracing on): its job joins that trace. */
interface Evaluation {
  packageId: string;
  traceparent: string | null;
}

function addEvaluationJobs(db: Db, evaluations: readonly Evaluation[]) {
  const unique = [...new Map(evaluations.map((e) => [e.packageId, e])).values()];
  return prepared(
    addJobs(
      EVALUATE_TASK,
      sql`(select jsonb_strip_nulls(jsonb_build_object('packageId', p, 'traceparent', t)) as payload, null::timestamptz as run_at
      from unnest(${unique.map((e) => e.packageId)}::text[], ${unique.map((e) => e.traceparent)}::text[]) as u (p, t))`,
    ),
  ).execute(db);
}

/**
 * Inserts the events once each (a repeat does nothing) and answers all the package's events,
 * in one statement: the rows inserted come from `returning`, since the statement's own reads
 * do not see them, and the rows kept before from the table.
 */
async function eventsAfterInsert(trx: Db, packageId: string, events: readonly NormalisedEvent[]) {
  const result = await sql<StateEvent>`
    with inserted as (
      insert into tracking_events
        (package_id, event_key, occurred_at, status, sub_status, raw_status, description, location, is_carrier_scan)
      select ${packageId}, e.event_key, e.occurred_at, e.status, e.sub_status, e.raw_status, e.description, e.location, e.is_carrier_scan
      from jsonb_to_recordset(${JSON.stringify(events.map(eventRow))}::jsonb) as e (
        event_key text, occurred_at timestamptz, status text, sub_status text, raw_status text,
        description text, location text, is_carrier_scan boolean
      )
      on conflict (package_id, event_key) do nothing
      returning event_key, occurred_at, status, sub_status, is_carrier_scan
    )
    select event_key, occurred_at, status, sub_status, is_carrier_scan from tracking_events where package_id = ${packageId}
    union all
    select event_key, occurred_at, status, sub_status, is_carrier_scan from inserted
  `.execute(trx);
  return result.rows;
}

function eventRow(e: NormalisedEvent) {
  return {
    event_key: e.eventKey,
    occurred_at: e.occurredAt.toISOString(),
    status: e.status,
    sub_status: e.subStatus,
    raw_status: e.rawStatus,
    description: e.description,
    location: e.location,
    is_carrier_scan: e.isCarrierScan,
  };
}

/** The package row of (owner, number), created when new, locked for this transaction. */
async function takePackage(trx: Db, owner: PackageOwner, trackingNumber: string): Promise<PackageRow> {
  const f = owner.fulfillment;
  const conflict = f
    ? sql`(order_id, source_fulfillment_id, tracking_number) where order_id is not null`
    : sql`(store_id, tracking_number) where order_id is null`;
  const inserted = await sql<PackageRow>`
    insert into tracking_packages (id, store_id, livemode, order_id, source_fulfillment_id, tracking_number, unbound_until)
    values (${newId('pkg')}, ${owner.storeId}, ${owner.livemode}, ${f?.orderId ?? null}, ${f?.sourceFulfillmentId ?? null},
      ${trackingNumber}, ${f ? null : sql`now() + make_interval(days => ${UNBOUND_DAYS})`})
    on conflict ${conflict} do nothing
    returning id, status, sub_status, carrier, estimated_delivery_at, true as created
  `.execute(trx);
  if (inserted.rows[0]) return inserted.rows[0];
  const existing = await sql<PackageRow>`
    select id, status, sub_status, carrier, estimated_delivery_at, false as created from tracking_packages
    where store_id = ${owner.storeId} and tracking_number = ${trackingNumber}
      and ${f ? sql`order_id = ${f.orderId} and source_fulfillment_id = ${f.sourceFulfillmentId}` : sql`order_id is null`}
    for update
  `.execute(trx);
  return existing.rows[0]!;
}

/** The partner's or the test helper's body as a normalised package (D54). */
export function packageOfBody(body: TTrackingEventsBody): NormalisedPackage {
  const trackingNumber = body.trackingNumber;
  return {
    trackingNumber,
    carrier: body.carrier ?? null,
    estimatedDeliveryAt: body.estimatedDeliveryAt ? new Date(body.estimatedDeliveryAt) : null,
    events: body.events.map((e) => {
      const occurredAt = new Date(e.occurredAt);
      const subStatus = e.subStatus ?? null;
      const description = e.description ?? null;
      const code = subStatus ? `${e.status}/${subStatus}` : e.status;
      return {
        trackingNumber,
        carrier: body.carrier ?? null,
        eventKey: e.id !== undefined ? `id:${e.id}` : eventKeyOf(trackingNumber, occurredAt, code, description),
        occurredAt,
        status: e.status,
        subStatus,
        rawStatus: null,
        description,
        location: e.location ?? null,
        isCarrierScan: isCarrierScanStatus(e.status),
      };
    }),
  };
}

/**
 * A fulfillment PUT (D54), in its transaction: numbers a source reported before the
 * fulfillment named them are bound to it (late binding, with `tracking/updated` when they
 * already say something), each number gets its package, and a changed `fulfillmentStatus`
 * becomes one event on each of them.
 */
export async function trackFulfillment(
  trx: Db,
  owner: PackageOwner & { fulfillment: NonNullable<PackageOwner['fulfillment']> },
  f: {
    fulfillmentStatus: string;
    previousStatus: string | null;
    trackingNumbers: readonly string[];
    carrier: string | null;
    at: Date;
  },
): Promise<void> {
  const numbers = [...new Set(f.trackingNumbers)];
  if (numbers.length === 0) return;
  const bound = await sql<{ id: string; trackingNumber: string }>`
    update tracking_packages p set order_id = ${owner.fulfillment.orderId},
      source_fulfillment_id = ${owner.fulfillment.sourceFulfillmentId}, unbound_until = null, updated_at = now()
    where p.store_id = ${owner.storeId} and p.order_id is null and p.tracking_number = any (${numbers}::text[])
      and not exists (
        select 1 from tracking_packages b where b.order_id = ${owner.fulfillment.orderId}
          and b.source_fulfillment_id = ${owner.fulfillment.sourceFulfillmentId} and b.tracking_number = p.tracking_number
      )
    returning p.id, p.tracking_number
  `.execute(trx);
  const mapped = f.fulfillmentStatus !== f.previousStatus ? statusFromFulfillmentStatus(f.fulfillmentStatus) : null;
  for (const trackingNumber of numbers) {
    const event = mapped && {
      trackingNumber,
      carrier: f.carrier,
      eventKey: eventKeyOf(trackingNumber, f.at, `fulfillment:${f.fulfillmentStatus}`, null),
      occurredAt: f.at,
      status: mapped.status,
      subStatus: mapped.subStatus,
      rawStatus: f.fulfillmentStatus,
      description: null,
      location: null,
      isCarrierScan: isCarrierScanStatus(mapped.status),
    };
    const wasUnbound = bound.rows.find((b) => b.trackingNumber === trackingNumber);
    if (wasUnbound) await announceBinding(trx, owner, wasUnbound.id);
    await ingestPackage(trx, owner, {
      trackingNumber,
      carrier: f.carrier,
      estimatedDeliveryAt: null,
      events: event ? [event] : [],
    });
  }
}

/** The one body of `tracking/updated`: a fulfillment's package now, and the status it had before (null: none). */
function trackingUpdatedBody(
  storeId: string,
  fulfillment: { sourceOrderId: string; sourceFulfillmentId: string },
  p: {
    trackingNumber: string;
    carrier: string | null;
    status: string;
    subStatus: string | null;
    statusAt: Date | null;
    estimatedDeliveryAt: Date | null;
  },
  previousStatus: string | null,
): WebhookBodies['tracking/updated'] {
  return {
    storeId,
    sourceOrderId: fulfillment.sourceOrderId,
    sourceFulfillmentId: fulfillment.sourceFulfillmentId,
    trackingNumber: p.trackingNumber,
    carrier: p.carrier,
    status: p.status as never,
    subStatus: p.subStatus as never,
    previousStatus: previousStatus as never,
    occurredAt: p.statusAt?.toISOString() ?? null,
    estimatedDeliveryAt: p.estimatedDeliveryAt?.toISOString() ?? null,
  };
}

/** A package bound late says what it already knew: `tracking/updated` from no status. */
async function announceBinding(trx: Db, owner: Parameters<typeof trackFulfillment>[1], packageId: string) {
  const p = await trx.selectFrom('trackingPackages').selectAll().where('id', '=', packageId).executeTakeFirstOrThrow();
  if (p.status === 'unknown' && p.subStatus === null) return;
  await recordEvent(trx, {
    storeId: owner.storeId,
    topic: 'tracking/updated',
    body: trackingUpdatedBody(owner.storeId, owner.fulfillment, p, null),
  });
  queueEvaluation(trx, [packageId]);
}

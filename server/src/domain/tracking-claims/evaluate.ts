import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { fileTrackingClaim } from '../claims/filing';
import { claimableItems } from '../commerce/claimable';
import {
  CLAIM_TYPE_OF_RULE,
  type Decision,
  evaluatePackage,
  type TrackingRule,
  type TrackingSettings,
} from '../tracking/rules';
import { readTrackingSettings } from '../tracking/settings';
import { packageState, type StateEvent } from '../tracking/state';
import { eventSteps, queueAfterCommit } from '../webhooks/record';

/** How often a delivering process sweeps the packages still under way (D54: at least every 15 minutes). */
export const TRACKING_SWEEP_EVERY_MS = 5 * 60_000;

/** One evaluation's decision on a package, as answered and (when `recorded`) written. */
export interface EvaluatedDecision extends Decision {
  trackingNumber: string;
  at: Date;
  asOf: Date;
  claimId: string | null;
  recorded: boolean;
}

/**
 * Whether every evaluation is written (`always`: the test helper's, which a user asked for),
 * or only one whose outcome differs from the package's last decision (`changed`: the job and
 * the sweep, which would otherwise write the same `skipped` every few minutes forever).
 */
export type Recording = 'always' | 'changed';

interface PackageRow {
  id: string;
  storeId: string;
  orderId: string | null;
  sourceOrderId: string | null;
  sourceFulfillmentId: string | null;
  trackingNumber: string;
  carrier: string | null;
  estimatedDeliveryAt: Date | null;
  claimId: string | null;
  customerEmail: string | null;
  fulfilled: { sourceItemId: string; quantity: number }[] | null;
}

interface Asked {
  itemId: string;
  quantity: number;
}

/** D54: evaluates every bound package of the store `storeId` as of `asOf` (the test helper). */
export async function evaluateStore(db: Db, storeId: string, asOf: Date): Promise<EvaluatedDecision[]> {
  const ids = await sql<{ id: string }>`
    select id from tracking_packages where store_id = ${storeId} and order_id is not null order by created_at, id
  `.execute(db);
  const decisions: EvaluatedDecision[] = [];
  for (const { id } of ids.rows) {
    const decision = await evaluatePackageNow(db, id, asOf, 'always');
    if (decision) decisions.push(decision);
  }
  return decisions;
}

/** How many packages one read of the sweep takes (D54): a sweep holds one batch of ids at a time. */
export const TRACKING_SWEEP_BATCH = 200;

/** What one sweep did: the packages evaluated, how many failed, and the first failure to log. */
export interface SweepOutcome {
  evaluated: number;
  failed: number;
  firstError?: unknown;
}

/**
 * D54's sweep: every bound package not delivered and without a claim, of every store, as of
 * `asOf`. The packages are read `batchSize` at a time in the order of their ids (keyset, so a
 * package filed or delivered meanwhile drops out and none is read twice), and each is evaluated
 * in its own transaction: one that fails is counted and the rest go on (the next sweep tries
 * it again). Only a read of a batch that fails ends the sweep. The job and the sweep record a
 * decision only when it differs from the package's last (`changed`).
 */
export async function sweepTracking(db: Db, asOf: Date, batchSize = TRACKING_SWEEP_BATCH): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { evaluated: 0, failed: 0 };
  const size = Math.max(1, Math.floor(batchSize));
  let after = '';
  for (;;) {
    const batch = await sql<{ id: string }>`
      select id from tracking_packages
      where order_id is not null and claim_id is null and status <> 'delivered' and id > ${after}
      order by id
      limit ${size}
    `.execute(db);
    for (const { id } of batch.rows) {
      try {
        await evaluatePackageNow(db, id, asOf, 'changed');
        outcome.evaluated++;
      } catch (err) {
        outcome.failed++;
        outcome.firstError ??= err;
      }
    }
    if (batch.rows.length < size) return outcome;
    after = batch.rows[batch.rows.length - 1]!.id;
  }
}

/**
 * D54: evaluates one package as of `asOf` in one transaction and acts on the decision. The
 * package's row is locked first (`for update`), so evaluations of one package run one after
 * the other, whatever runs them; the next one reads the claim the previous one filed and
 * escalates or skips instead. The guarded update `claim_id is null` and the unique
 * `claim_id` are the backstops: a second claim for a package rolls its transaction back.
 * Answers null for a package no fulfillment names yet (nothing to evaluate).
 */
export async function evaluatePackageNow(
  db: Db,
  packageId: string,
  asOf: Date,
  recording: Recording,
): Promise<EvaluatedDecision | null> {
  return transact(db, async (trx) => {
    const pkg = await lockPackage(trx, packageId);
    if (!pkg?.orderId || !pkg.sourceOrderId || !pkg.sourceFulfillmentId) return null;
    const [events, settings, hasActivePolicy, items, shopperClaim, last] = await Promise.all([
      eventsUntil(trx, pkg.id, asOf),
      readTrackingSettings(trx, pkg.storeId),
      activePolicy(trx, pkg.orderId),
      claimableOfPackage(trx, pkg),
      shopperClaimOf(trx, pkg),
      lastDecisions(trx, pkg.id),
    ]);
    const existingClaim = pkg.claimId
      ? { id: pkg.claimId, byTracking: true }
      : shopperClaim
        ? { id: shopperClaim, byTracking: false }
        : null;
    let decision = evaluatePackage({
      state: packageState(events),
      estimatedDeliveryAt: pkg.estimatedDeliveryAt,
      settings,
      asOf,
      hasActivePolicy,
      hasClaimableItems: items.length > 0,
      existingClaim,
    });
    let claimId = pkg.claimId;
    // Escalation is a graver rule than the one that filed (delayed, then lost or returned);
    // the same rule again is the claim already filed, and says nothing new.
    if (decision.action === 'escalated' && decision.rule === last.filedRule) {
      decision = { ...decision, action: 'skipped', reason: `the package already has its claim ${pkg.claimId}` };
    }
    if (decision.action === 'filed' && decision.rule) {
      const filed = await fileClaim(trx, pkg, decision.rule, decision.reason, settings, items);
      if ('refused' in filed)
        decision = { ...decision, action: 'skipped', reason: `${filed.refused}; ${decision.reason}` };
      else claimId = filed.claimId;
    }
    if (decision.action === 'skipped' && !existingClaim?.byTracking) claimId = existingClaim?.id ?? null;
    const same =
      last.latest !== null &&
      last.latest.rule === decision.rule &&
      last.latest.action === decision.action &&
      last.latest.claimId === claimId;
    const recorded = recording === 'always' || !same;
    const at = recorded ? await recordDecision(trx, pkg, asOf, decision, claimId) : new Date();
    return { ...decision, trackingNumber: pkg.trackingNumber, at, asOf, claimId, recorded };
  });
}

async function lockPackage(trx: Db, packageId: string): Promise<PackageRow | undefined> {
  const result = await sql<PackageRow>`
    select p.id, p.store_id, p.order_id, o.source_order_id, p.source_fulfillment_id, p.tracking_number,
      p.carrier, p.estimated_delivery_at, p.claim_id, o.customer_email, f.source_item_ids as fulfilled
    from tracking_packages p
    left join orders o on o.id = p.order_id and o.deleted_at is null
    left join fulfillments f on f.order_id = p.order_id and f.source_fulfillment_id = p.source_fulfillment_id
    where p.id = ${packageId}
    for update of p
  `.execute(trx);
  return result.rows[0];
}

/** The package's events that had happened by `asOf`: the rules see no future (D54). */
async function eventsUntil(trx: Db, packageId: string, asOf: Date): Promise<StateEvent[]> {
  const result = await sql<StateEvent>`
    select occurred_at, status, sub_status, is_carrier_scan, event_key from tracking_events
    where package_id = ${packageId} and occurred_at <= ${asOf}
  `.execute(trx);
  return result.rows;
}

async function activePolicy(trx: Db, orderId: string): Promise<boolean> {
  const result = await sql<{ active: boolean }>`
    select exists (select 1 from protection_policies where order_id = ${orderId} and removed_at is null) as active
  `.execute(trx);
  return result.rows[0]?.active === true;
}

/**
 * What a claim on the package would name (D39): the fulfillment's items, each at the least of
 * its fulfilled quantity and what is left to claim of it; a fulfillment that names no items
 * stands for the whole order, every item at what is left to claim of it. Items with nothing
 * left are left out; none at all means nothing to claim.
 */
async function claimableOfPackage(trx: Db, pkg: PackageRow): Promise<Asked[]> {
  const result = await sql<{ itemId: string; claimable: number }>`
    select k.item_id, k.claimable from (${claimableItems(sql`${pkg.orderId}::text`)}) k
  `.execute(trx);
  const claimable = new Map(result.rows.map((r) => [r.itemId, r.claimable]));
  const named = pkg.fulfilled && pkg.fulfilled.length > 0 ? pkg.fulfilled : null;
  const wanted = named
    ? named.map((f) => ({ itemId: f.sourceItemId, quantity: Math.min(f.quantity, claimable.get(f.sourceItemId) ?? 0) }))
    : [...claimable].map(([itemId, quantity]) => ({ itemId, quantity }));
  return wanted.filter((w) => w.quantity > 0);
}

/**
 * A claim that already names the package without the rules having filed it: a claim on the
 * order, not deleted, with an item of the package's fulfillment. Claims the rules filed for
 * another package of the same fulfillment are not the shopper's (their items then count as
 * claimed, D39).
 */
async function shopperClaimOf(trx: Db, pkg: PackageRow): Promise<string | null> {
  const result = await sql<{ id: string }>`
    select c.id from claims c
    where c.order_id = ${pkg.orderId} and c.deleted_at is null
      and exists (select 1 from claim_items ci where ci.claim_id = c.id and ci.source_fulfillment_id = ${pkg.sourceFulfillmentId})
      and not exists (select 1 from tracking_packages p where p.claim_id = c.id)
    order by c.created_at, c.id
    limit 1
  `.execute(trx);
  return result.rows[0]?.id ?? null;
}

interface LastDecisions {
  latest: { rule: TrackingRule | null; action: Decision['action']; claimId: string | null } | null;
  filedRule: TrackingRule | null;
}

async function lastDecisions(trx: Db, packageId: string): Promise<LastDecisions> {
  const result = await sql<{ latest: LastDecisions['latest']; filedRule: TrackingRule | null }>`
    select
      (select json_build_object('rule', d.rule, 'action', d.action, 'claimId', d.claim_id) from tracking_decisions d
        where d.package_id = ${packageId} order by d.id desc limit 1) as latest,
      (select d.rule from tracking_decisions d
        where d.package_id = ${packageId} and d.action = 'filed' order by d.id desc limit 1) as filed_rule
  `.execute(trx);
  return result.rows[0] ?? { latest: null, filedRule: null };
}

/**
 * D54: the claim of a fired rule, filed as every claim is (D22, D39, D42, D53), then named on
 * the package by a guarded update. Lost and delayed packages' items are `MISSING_ITEM`,
 * returned ones `RETURNED_TO_SENDER`.
 */
async function fileClaim(
  trx: Db,
  pkg: PackageRow,
  rule: TrackingRule,
  evidence: string,
  settings: TrackingSettings,
  items: Asked[],
): Promise<{ claimId: string } | { refused: string }> {
  const filed = await fileTrackingClaim(trx, {
    storeId: pkg.storeId,
    sourceOrderId: pkg.sourceOrderId!,
    sourceFulfillmentId: pkg.sourceFulfillmentId!,
    authorEmail: pkg.customerEmail,
    resolutionRequested: settings.resolutionRequested,
    claimType: CLAIM_TYPE_OF_RULE[rule],
    issueType: rule === 'returned' ? 'RETURNED_TO_SENDER' : 'MISSING_ITEM',
    description:
      `Filed from shipment tracking (D54), rule ${rule}: ${evidence}. ` +
      `Tracking number ${pkg.trackingNumber}${pkg.carrier ? ` (${pkg.carrier})` : ''}, ` +
      `estimated delivery ${pkg.estimatedDeliveryAt?.toISOString() ?? 'unknown'}.`,
    items,
  });
  if ('refused' in filed) return filed;
  const named = await sql`
    update tracking_packages set claim_id = ${filed.claimId}, updated_at = now()
    where id = ${pkg.id} and claim_id is null
  `.execute(trx);
  // The row lock makes this unreachable; were it reached, the claim rolls back with it.
  if (Number(named.numAffectedRows ?? 0) !== 1) throw new Error(`package ${pkg.id} already has its claim`);
  return filed;
}

/**
 * The decision's row and, when a rule fired and something was done (filed, notified,
 * escalated), `tracking/alert` (D54), in one statement of the evaluation's transaction.
 */
async function recordDecision(
  trx: Db,
  pkg: PackageRow,
  asOf: Date,
  decision: Decision,
  claimId: string | null,
): Promise<Date> {
  const alert =
    decision.rule && decision.action !== 'skipped'
      ? eventSteps({
          storeId: pkg.storeId,
          topic: 'tracking/alert',
          body: {
            storeId: pkg.storeId,
            sourceOrderId: pkg.sourceOrderId!,
            sourceFulfillmentId: pkg.sourceFulfillmentId!,
            trackingNumber: pkg.trackingNumber,
            rule: decision.rule,
            action: decision.action,
            reason: decision.reason,
            claimId,
          },
        })
      : null;
  const result = await sql<{ at: Date; subscribers: string[] }>`
    with decision as (
      insert into tracking_decisions (package_id, as_of, rule, action, reason, claim_id)
      values (${pkg.id}, ${asOf}, ${decision.rule}, ${decision.action}, ${decision.reason}, ${claimId})
      returning at
    )${alert ? sql`, ${alert.steps}` : sql``}
    select decision.at, ${alert ? sql`array(select client_id from fanned)` : sql`array[]::text[]`} as subscribers
    from decision
  `.execute(trx);
  const row = result.rows[0]!;
  if (alert) queueAfterCommit(trx, alert.id, row.subscribers);
  return row.at;
}

import { z } from 'zod';
import { ZResolutionType } from './claims';
import { ZId, ZTimestamp, ZTimestampInput } from './common';

/**
 * Shipment tracking (D54): a package is one tracking number of a fulfillment, with its status
 * from one vocabulary, its events and the decisions the store's rules took on it.
 */

/** D54's package statuses; a provider code nobody knows is `unknown`. */
export const TRACKING_STATUS_VALUES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'delivered',
  'return_to_sender',
  'exception',
  'lost',
  'unknown',
] as const;
export const ZTrackingStatus = z.enum(TRACKING_STATUS_VALUES);
export type TTrackingStatus = z.infer<typeof ZTrackingStatus>;

/** The carrier aggregators a store may register as a tracking source (D54). */
export const TRACKING_PROVIDER_VALUES = ['aftership', 'easypost', 'ship24'] as const;
export const ZTrackingProvider = z.enum(TRACKING_PROVIDER_VALUES);
export type TTrackingProvider = z.infer<typeof ZTrackingProvider>;

/** The rules of D54 and what an evaluation did. */
export const ZTrackingRule = z.enum(['lost', 'delayed', 'returned']);
export const ZTrackingAction = z.enum(['filed', 'notified', 'skipped', 'escalated']);
export const ZTrackingMode = z.enum(['off', 'notify', 'file']);

/** At most this many events in one partner or test-helper delivery (D54). */
export const MAX_TRACKING_EVENTS = 100;

const ZTrackingNumber = z.string().min(1).max(128).describe('A tracking number of the fulfillment (D20, D54)');
const ZSubStatus = z.string().min(1).max(128);

/** One event as a partner sends it (D54): the provider's id when there is one. */
export const ZTrackingEventInput = z
  .object({
    id: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        'The event id at its origin; when absent a digest of (time, status, description) keys it, so a repeat does nothing',
      ),
    occurredAt: ZTimestampInput.describe('When it happened: state follows event times, never arrival order (D54)'),
    status: ZTrackingStatus,
    subStatus: ZSubStatus.nullish(),
    description: z.string().max(1_000).nullish(),
    location: z.string().max(255).nullish(),
  })
  .strict();
export type TTrackingEventInput = z.infer<typeof ZTrackingEventInput>;

/** `POST …/tracking-events` body (D54): one package's events, at most 100. */
export const ZTrackingEventsBody = z
  .object({
    trackingNumber: ZTrackingNumber,
    carrier: z.string().min(1).max(64).nullish(),
    estimatedDeliveryAt: ZTimestampInput.nullish(),
    events: z.array(ZTrackingEventInput).max(MAX_TRACKING_EVENTS),
  })
  .strict()
  .describe('Tracking events of one package (D54)');
export type TTrackingEventsBody = z.infer<typeof ZTrackingEventsBody>;

/** `POST /v1/test_helpers/tracking/events` body: the partner body plus the fulfillment (D54). */
export const ZTestTrackingEventsBody = ZTrackingEventsBody.extend({
  sourceOrderId: ZId,
  sourceFulfillmentId: ZId,
})
  .strict()
  .describe('Normalised tracking events injected at any occurredAt (D45, D54)');
export type TTestTrackingEventsBody = z.infer<typeof ZTestTrackingEventsBody>;

/** An event as read (D54). Description and location expire with the event retention (D48). */
export const ZTrackingEvent = z
  .object({
    occurredAt: ZTimestamp,
    status: ZTrackingStatus,
    subStatus: z.string().nullable(),
    rawStatus: z
      .string()
      .nullable()
      .describe("The provider's own code(s) beside ours; null for partner and fulfillment events"),
    description: z.string().nullable().describe('Null once older than the retention (D48)'),
    location: z.string().nullable().describe('Null once older than the retention (D48)'),
    receivedAt: ZTimestamp,
  })
  .strict();
export type TTrackingEvent = z.infer<typeof ZTrackingEvent>;

/** One evaluation's outcome, kept and answered with the package (D54). */
export const ZTrackingDecision = z
  .object({
    at: ZTimestamp.describe('When the evaluation ran'),
    asOf: ZTimestamp.describe('The time the rules were evaluated as of'),
    rule: ZTrackingRule.nullable().describe('The rule that fired; null when none did'),
    action: ZTrackingAction,
    reason: z.string(),
    claimId: ZId.nullable(),
  })
  .strict();
export type TTrackingDecision = z.infer<typeof ZTrackingDecision>;

/** A package (D54): events newest first, decisions newest first. */
export const ZTrackingPackage = z
  .object({
    trackingNumber: z.string(),
    carrier: z.string().nullable(),
    status: ZTrackingStatus,
    subStatus: z.string().nullable(),
    statusAt: ZTimestamp.nullable().describe('When the current status happened'),
    lastScanAt: ZTimestamp.nullable().describe('The last carrier scan'),
    estimatedDeliveryAt: ZTimestamp.nullable(),
    deliveredAt: ZTimestamp.nullable(),
    events: z.array(ZTrackingEvent).describe('Newest first'),
    decisions: z.array(ZTrackingDecision).describe('Newest first'),
  })
  .strict()
  .describe('Package (D54)');
export type TTrackingPackage = z.infer<typeof ZTrackingPackage>;

/** `POST /v1/test_helpers/tracking/evaluate` (D54). */
export const ZTrackingEvaluateBody = z
  .object({ asOf: ZTimestampInput.describe('Run the rules as if it were this time') })
  .strict();
export const ZTrackingEvaluation = z
  .object({
    decisions: z.array(ZTrackingDecision.extend({ trackingNumber: z.string() }).strict()),
  })
  .strict();
export type TTrackingEvaluation = z.infer<typeof ZTrackingEvaluation>;

// ---------------------------------------------------------------------------------------------
// The store's rules (D54).

const ZDays = (min: number, max: number) => z.number().int().min(min).max(max);
const trackingSettingsFields = {
  mode: ZTrackingMode.describe('`off` (default): nothing is decided; `notify`: alerts only; `file`: claims are filed'),
  lostNoMovementDays: ZDays(1, 365).describe('Lost after this many days without a carrier scan (default 7)'),
  lostAfterEstimatedDays: ZDays(0, 365).describe('Lost this many days past the estimated delivery (default 2)'),
  delayedEnabled: z.boolean().describe('Whether the delayed rule runs (default false)'),
  delayedAfterEstimatedDays: ZDays(0, 365).describe('Delayed this many days past the estimated delivery (default 1)'),
  claimWindowDays: ZDays(1, 365).describe('Claims are filed within this many days of shipping (default 45)'),
  resolutionRequested: ZResolutionType.describe("The filed claim's requested resolution (default REFUND)"),
};

export const ZTrackingSettings = z
  .object(trackingSettingsFields)
  .strict()
  .describe('Tracking rules of the store (D54)');
export type TTrackingSettings = z.infer<typeof ZTrackingSettings>;

/** `PUT …/tracking-settings`: the fields to change; omitted ones keep their value. */
export const ZTrackingSettingsUpdate = z.object(trackingSettingsFields).partial().strict();
export type TTrackingSettingsUpdate = z.infer<typeof ZTrackingSettingsUpdate>;

// ---------------------------------------------------------------------------------------------
// Tracking sources (D54).

export const ZTrackingSourceCreate = z
  .object({
    provider: ZTrackingProvider,
    secret: z
      .string()
      .min(16)
      .max(255)
      .optional()
      .describe("The provider's webhook secret; when omitted the service makes one and answers it once"),
  })
  .strict();
export type TTrackingSourceCreate = z.infer<typeof ZTrackingSourceCreate>;

/** A source as listed: never its secret (D54). */
export const ZTrackingSource = z
  .object({
    id: ZId,
    provider: ZTrackingProvider,
    inboundUrl: z.string().describe('Where the provider posts: `<base>/v1/tracking/inbound/<id>`'),
    createdAt: ZTimestamp,
  })
  .strict();
export type TTrackingSource = z.infer<typeof ZTrackingSource>;

/** The create answer: the secret only when the service made it, and only here (D54). */
export const ZTrackingSourceCreated = ZTrackingSource.extend({
  secret: z.string().optional().describe('Present only when the service generated the secret; never shown again'),
}).strict();
export type TTrackingSourceCreated = z.infer<typeof ZTrackingSourceCreated>;

/** `POST /v1/tracking/inbound/:sourceId` path. */
export const ZTrackingInboundPath = z.object({ sourceId: ZId });

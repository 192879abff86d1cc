import { z } from 'zod';
import { ZApiVersion } from '../versions/list';
import { ZClaimRisk, ZClaimState, ZClaimType, ZDenyReason, ZIssueType, ZResolutionType, ZSenderType } from './claims';
import { ZAmount, ZCurrency, ZId, ZText, ZTimestamp } from './common';
import { ZTrackingAction, ZTrackingRule, ZTrackingStatus } from './tracking';

/**
 * Webhooks the service delivers to an installed app (spec "Events", D19, D22, D25, D32).
 * The SDK verifies and types incoming deliveries with these schemas; the server builds its
 * event bodies against them. Every schema is strict: a delivery carries exactly these fields.
 */

/** The six topics of the spec and D54's two tracking topics. */
export const WEBHOOK_TOPICS = [
  'claim/created',
  'claim/approved',
  'claim/denied',
  'message/created',
  'protection/added',
  'protection/removed',
  'tracking/updated',
  'tracking/alert',
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
export const ZWebhookTopic = z.enum(WEBHOOK_TOPICS);

/** Delivery headers (spec, D32). Header names are lower case as Node presents them. */
export const WEBHOOK_HEADERS = {
  /** The app's shared webhook secret `svc_whsec_…` (spec); after a rotation, the new one (D34). */
  secret: 'x-webhook-secret',
  /** The event id; the same on every retry of one event (D32). */
  id: 'x-webhook-id',
  topic: 'x-webhook-topic',
  /** Unix seconds of this attempt; fresh on every retry (D32). */
  timestamp: 'x-webhook-timestamp',
  /**
   * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` keyed by the webhook secret;
   * for 24 h after a rotation two such entries separated by a space (D32, D34).
   */
  signature: 'x-webhook-signature',
  /** The dated API version the body is rendered in: the receiving app's pin when the event was recorded (D44). */
  apiVersion: 'webhook-api-version',
} as const;

/** Version tag of the signature scheme in `x-webhook-signature` (D32). */
export const WEBHOOK_SIGNATURE_VERSION = 'v1';

/**
 * Prefix of webhook secrets. The spec names no prefix; `svc_whsec_` is this contract's choice,
 * in the family of `svc_secret_` (D5). A webhook secret is separate from the client secret.
 */
export const WEBHOOK_SECRET_PREFIX = 'svc_whsec_';
export const ZWebhookSecret = z
  .string()
  .startsWith(WEBHOOK_SECRET_PREFIX)
  .max(255)
  .describe('Webhook secret `svc_whsec_…`: sent as `x-webhook-secret` and keys the HMAC signature (D32)');

/** Why protection ended (D19): cancelled, premium set to 0, order deleted. */
export const PROTECTION_REMOVAL_REASONS = ['CANCELLED', 'PREMIUM_REMOVED', 'ORDER_DELETED'] as const;

// ---------------------------------------------------------------------------------------------
// Bodies per topic.

/** One item of a filed claim (spec claim item: id, itemId, quantity; D22 issue type). */
export const ZWebhookClaimItem = z
  .object({
    id: ZId.describe('Claim item id'),
    itemId: ZId.nullable().describe("The order's source item id, null when the issue named only a product"),
    quantity: z.number().int().positive(),
    issueType: ZIssueType.nullable(),
  })
  .strict();

/** `claim/created` (D22). */
export const ZClaimCreatedBody = z
  .object({
    claimId: ZId,
    storeId: ZId,
    sourceOrderId: ZId,
    claimCategory: z.enum(['SHIPPING', 'WARRANTY']),
    claimType: ZClaimType.nullable(),
    claimState: ZClaimState.describe('`NEW` for a freshly filed claim (D22)'),
    items: z.array(ZWebhookClaimItem),
    risk: ZClaimRisk.describe("The claim's risk as it was filed (D57): informs, never decides"),
  })
  .strict()
  .describe('claim/created body (D22)');
export type TClaimCreatedBody = z.infer<typeof ZClaimCreatedBody>;

/** `claim/approved` (spec: claimId, storeId, resolutions of type, itemId, quantity). */
export const ZClaimApprovedBody = z
  .object({
    claimId: ZId,
    storeId: ZId,
    resolutions: z.array(
      z
        .object({
          type: ZResolutionType,
          itemId: ZId.nullable().describe('Null when the resolution covers the whole claim (no `itemId`)'),
          quantity: z.number().int().positive().nullable().describe('Null when not given on approval (D22)'),
        })
        .strict(),
    ),
  })
  .strict()
  .describe('claim/approved body (spec)');
export type TClaimApprovedBody = z.infer<typeof ZClaimApprovedBody>;

/** `claim/denied` (D22). */
export const ZClaimDeniedBody = z
  .object({
    claimId: ZId,
    storeId: ZId,
    sourceOrderId: ZId,
    reason: ZDenyReason,
  })
  .strict()
  .describe('claim/denied body (D22)');
export type TClaimDeniedBody = z.infer<typeof ZClaimDeniedBody>;

/** `message/created` (D25). */
export const ZMessageCreatedBody = z
  .object({
    claimId: ZId,
    storeId: ZId,
    messageId: ZId,
    senderType: ZSenderType,
    message: ZText(),
  })
  .strict()
  .describe('message/created body (D25)');
export type TMessageCreatedBody = z.infer<typeof ZMessageCreatedBody>;

const protectionFields = {
  orderId: ZId.describe("The service's order id"),
  sourceOrderId: ZId.describe("The merchant platform's order id"),
  storeId: ZId,
  policyId: ZId,
  premiumPaid: ZAmount.describe('Premium of the policy (for a removal: the premium it had while active)'),
  currency: ZCurrency.describe('The order currency'),
};

/**
 * `protection/added` (D19). The spec shows no body; this contract's choice:
 * `{orderId, sourceOrderId, storeId, policyId, premiumPaid, currency}`.
 */
export const ZProtectionAddedBody = z.object(protectionFields).strict().describe('protection/added body (D19)');
export type TProtectionAddedBody = z.infer<typeof ZProtectionAddedBody>;

/**
 * `protection/removed` (D19). The spec shows no body; this contract's choice: the
 * protection/added fields plus `removedAt` (the policy's removal time) and `reason`.
 */
export const ZProtectionRemovedBody = z
  .object({
    ...protectionFields,
    removedAt: ZTimestamp,
    reason: z.enum(PROTECTION_REMOVAL_REASONS),
  })
  .strict()
  .describe('protection/removed body (D19)');
export type TProtectionRemovedBody = z.infer<typeof ZProtectionRemovedBody>;

const packageIds = {
  storeId: ZId,
  sourceOrderId: ZId,
  sourceFulfillmentId: ZId,
  trackingNumber: z.string(),
};

/** `tracking/updated` (D54): a package's status or subStatus changed. */
export const ZTrackingUpdatedBody = z
  .object({
    ...packageIds,
    carrier: z.string().nullable(),
    status: ZTrackingStatus,
    subStatus: z.string().nullable(),
    previousStatus: ZTrackingStatus.nullable().describe('Null for a package seen for the first time'),
    occurredAt: ZTimestamp.nullable().describe('When the new status happened (its event time)'),
    estimatedDeliveryAt: ZTimestamp.nullable(),
  })
  .strict()
  .describe('tracking/updated body (D54)');
export type TTrackingUpdatedBody = z.infer<typeof ZTrackingUpdatedBody>;

/** `tracking/alert` (D54): a rule fired on a package. */
export const ZTrackingAlertBody = z
  .object({
    ...packageIds,
    rule: ZTrackingRule,
    action: ZTrackingAction,
    reason: z.string(),
    claimId: ZId.nullable(),
  })
  .strict()
  .describe('tracking/alert body (D54)');
export type TTrackingAlertBody = z.infer<typeof ZTrackingAlertBody>;

/** Topic → body schema. */
export const WEBHOOK_BODY_SCHEMAS = {
  'claim/created': ZClaimCreatedBody,
  'claim/approved': ZClaimApprovedBody,
  'claim/denied': ZClaimDeniedBody,
  'message/created': ZMessageCreatedBody,
  'protection/added': ZProtectionAddedBody,
  'protection/removed': ZProtectionRemovedBody,
  'tracking/updated': ZTrackingUpdatedBody,
  'tracking/alert': ZTrackingAlertBody,
} as const satisfies Record<WebhookTopic, z.ZodTypeAny>;
export type WebhookBodies = { [T in WebhookTopic]: z.infer<(typeof WEBHOOK_BODY_SCHEMAS)[T]> };

// ---------------------------------------------------------------------------------------------
// The delivered envelope (D32, D44, D45): {id, topic, apiVersion, livemode, createdAt, body}.

export const ZWebhookEventId = ZId.describe('Event id; the same on every retry, receivers deduplicate by it (D32)');

function envelope<const T extends WebhookTopic>(topic: T) {
  return z
    .object({
      id: ZWebhookEventId,
      topic: z.literal(topic),
      apiVersion: ZApiVersion.describe(
        "The dated API version the body is rendered in: the receiving app's pinned version when the event was recorded, the same on every retry (D44)",
      ),
      livemode: z.boolean().describe('False for an event of a test store, true for a live store (D45)'),
      createdAt: ZTimestamp,
      body: WEBHOOK_BODY_SCHEMAS[topic],
    })
    .strict();
}

export const ZClaimCreatedEvent = envelope('claim/created');
export const ZClaimApprovedEvent = envelope('claim/approved');
export const ZClaimDeniedEvent = envelope('claim/denied');
export const ZMessageCreatedEvent = envelope('message/created');
export const ZProtectionAddedEvent = envelope('protection/added');
export const ZProtectionRemovedEvent = envelope('protection/removed');
export const ZTrackingUpdatedEvent = envelope('tracking/updated');
export const ZTrackingAlertEvent = envelope('tracking/alert');

/** A delivered webhook body (D32), discriminated by `topic`. */
export const ZWebhookEvent = z
  .discriminatedUnion('topic', [
    ZClaimCreatedEvent,
    ZClaimApprovedEvent,
    ZClaimDeniedEvent,
    ZMessageCreatedEvent,
    ZProtectionAddedEvent,
    ZProtectionRemovedEvent,
    ZTrackingUpdatedEvent,
    ZTrackingAlertEvent,
  ])
  .describe('Webhook delivery body {id, topic, apiVersion, livemode, createdAt, body} (D32, D44, D45)');
export type TWebhookEvent = z.infer<typeof ZWebhookEvent>;
/** The delivered envelope of one topic. */
export type TWebhookEventOf<T extends WebhookTopic> = Extract<TWebhookEvent, { topic: T }>;

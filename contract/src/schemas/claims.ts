import { z } from 'zod';
import {
  connection,
  ZAmount,
  ZCurrency,
  ZDateOrDateTime,
  ZEmail,
  ZId,
  ZIsoDuration,
  ZPageQuery,
  ZPhone,
  ZText,
  ZTimestamp,
  ZTimestampInput,
  ZUrl,
} from './common';
import { ZStoreCreditType } from './settings';

/** Short free text (names, SKUs, address lines). */
const ZShortText = z.string().max(255);
/** Free text such as issue details and messages. */
const ZLongText = ZText(10_000);
/** At most 20 image URLs per list. */
const ZImages = z.array(ZUrl).max(20);

// ---------------------------------------------------------------------------------------
// Enums (D22, D26, spec)
// ---------------------------------------------------------------------------------------

/** D22: every claim state. A filed claim is `NEW`. */
export const CLAIM_STATES = [
  'NEW',
  'OPEN',
  'COMMUNICATING',
  'WAITING_FOR_CUSTOMER',
  'WAITING_FOR_BRAND',
  'WAITING_FOR_OP',
  'APPROVED',
  'DENIED',
  'DISMISSED',
  'TEMPORARILY_DISMISSED',
  'RESOLVED',
  'RESOLVED_BY_BRAND',
  'CLOSED',
  'ARCHIVED',
] as const;
export const ZClaimState = z.enum(CLAIM_STATES);
export type TClaimState = z.infer<typeof ZClaimState>;

/** States `POST /v1/claims/:claimId/transition` may target: all but APPROVED and DENIED,
 *  which only the approve and deny routes reach (D22 "every other move"). */
export const ZTransitionTargetState = ZClaimState.exclude(['APPROVED', 'DENIED']);

const ACTIVE_STATES = [
  'NEW',
  'OPEN',
  'COMMUNICATING',
  'WAITING_FOR_CUSTOMER',
  'WAITING_FOR_BRAND',
  'WAITING_FOR_OP',
] as const satisfies readonly TClaimState[];
const fromActive = (self: TClaimState): TClaimState[] => [
  ...ACTIVE_STATES.filter((s) => s !== self),
  'APPROVED',
  'DENIED',
  'DISMISSED',
  'TEMPORARILY_DISMISSED',
];

/** D22: the moves a claim may make; any other answers 409 and changes nothing. */
export const CLAIM_TRANSITIONS: Readonly<Record<TClaimState, readonly TClaimState[]>> = {
  NEW: fromActive('NEW'),
  OPEN: fromActive('OPEN'),
  COMMUNICATING: fromActive('COMMUNICATING'),
  WAITING_FOR_CUSTOMER: fromActive('WAITING_FOR_CUSTOMER'),
  WAITING_FOR_BRAND: fromActive('WAITING_FOR_BRAND'),
  WAITING_FOR_OP: fromActive('WAITING_FOR_OP'),
  TEMPORARILY_DISMISSED: ['OPEN'],
  APPROVED: ['RESOLVED', 'RESOLVED_BY_BRAND'],
  DENIED: ['CLOSED'],
  DISMISSED: ['CLOSED'],
  RESOLVED: ['CLOSED'],
  RESOLVED_BY_BRAND: ['CLOSED'],
  CLOSED: ['ARCHIVED'],
  ARCHIVED: [],
};

/** D22: whether a claim may move from `from` to `to`. */
export function canTransition(from: TClaimState, to: TClaimState): boolean {
  return CLAIM_TRANSITIONS[from].includes(to);
}

import { ISSUE_TYPES, ZIssueType } from './issue-types';

export { ISSUE_TYPES, type TIssueType, ZIssueType } from './issue-types';

/**
 * D22: a claim whose issues have several types has `claimType` `MULTIPLE`. D54: a claim the
 * service filed from tracking names the rule that filed it, `LOST_IN_TRANSIT` or `DELAYED`
 * (`RETURNED_TO_SENDER` is an issue type already); versions before 2027-01-15 show those as null.
 */
export const CLAIM_TYPES = [...ISSUE_TYPES, 'MULTIPLE', 'LOST_IN_TRANSIT', 'DELAYED'] as const;
export const ZClaimType = z.enum(CLAIM_TYPES);
export type TClaimType = z.infer<typeof ZClaimType>;

/** D22: `desiredMethod`, `resolutionRequested` and resolution `type`. */
export const RESOLUTION_TYPES = ['REFUND', 'RESHIP', 'STORE_CREDIT'] as const;
export const ZResolutionType = z.enum(RESOLUTION_TYPES);
export type TResolutionType = z.infer<typeof ZResolutionType>;

/** D22: deny reasons. */
export const DENY_REASONS = [
  'NOT_COVERED',
  'ADDRESS_TYPO',
  'CUSTOMER_RESPONDED',
  'EXPIRED30',
  'FOLLOW_UP',
  'INSUFFICIENT_SHIPPER',
  'NO_RESPONSE',
  'OTHER',
  'PACKAGE_ARRIVED',
  'PHOTO_VERIFIED',
  'THRESHOLD_REACHED',
  'ALREADY_REFUNDED',
  'ALREADY_REPLACED',
  'POTENTIAL_FRAUD',
] as const;
export const ZDenyReason = z.enum(DENY_REASONS);
export type TDenyReason = z.infer<typeof ZDenyReason>;

export const ZSalesChannel = z.enum(['ONLINE', 'IN_STORE']);
export const ZClaimCategory = z.enum(['SHIPPING', 'WARRANTY']);
export const ZClaimFiledFrom = z.enum(['EXTERNAL', 'INTERNAL']);
/** Message authors (spec: values seen `customer`, `brand`). */
export const ZSenderType = z.enum(['customer', 'brand']);
/**
 * D26, D42: a store credit's e-mail is `PENDING` until the SMTP server accepts it (`SENT`),
 * `FAILED` after the last retry, `NOT_SENT` when the service has no SMTP server.
 */
export const ZEmailStatus = z
  .enum(['PENDING', 'SENT', 'FAILED', 'NOT_SENT'])
  .describe(
    'PENDING until the SMTP server accepts the e-mail, then SENT; FAILED after the last retry; NOT_SENT without an SMTP server (D42)',
  );
/** Store-credit bonus kind: `NONE` (seen in the spec), or the settings' flat/percentage (D26). */
export const ZBonusType = z.enum(['NONE', 'FLAT', 'PERCENTAGE']);
/** Claim documents: the customer signature (seen), receipts and issue images. */
export const ZDocumentType = z.enum(['SIGNATURE', 'RECEIPT', 'IMAGE']);
export const ZFundedBy = z.enum(['customer', 'brand']);
export const ZHybridOperator = z.enum(['AND', 'OR']);

// ---------------------------------------------------------------------------------------
// Filing (D23)
// ---------------------------------------------------------------------------------------

export const ZClaimIssue = z
  .object({
    issueType: ZIssueType,
    quantity: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .describe("Positive; at most the item's ordered quantity when the order's line items are known (D23)"),
    sourceProductId: ZId.nullish(),
    sourceVariantId: ZId.nullish(),
    sourceItemId: ZId.nullish().describe("The order line item's sourceItemId"),
    details: ZLongText.nullish().describe('Free text'),
    images: ZImages.optional(),
  })
  .strict();
export type TClaimIssue = z.infer<typeof ZClaimIssue>;

export const ZFulfillmentIssues = z
  .object({
    sourceFulfillmentId: ZId.nullish(),
    issues: z.array(ZClaimIssue).min(1).max(100),
  })
  .strict();

export const ZClaimOptions = z
  .object({
    fromValet: z.boolean().nullish(),
    requireCustomerSignature: z.boolean().nullish(),
  })
  .strict();

/** `POST /v1/claims/:sourceOrderId` body (spec, D23). */
export const ZClaimFile = z
  .object({
    email: ZEmail.describe('Claimant e-mail'),
    salesChannel: ZSalesChannel,
    claimCategory: ZClaimCategory,
    fulfillmentIssues: z.array(ZFulfillmentIssues).min(1).max(100).describe('At least one issue is required (D23)'),
    resolution: z
      .object({
        customerSignature: ZUrl.nullish(),
        desiredMethod: ZResolutionType,
        warrantyPeriod: ZIsoDuration.nullish(),
      })
      .strict(),
    claimFiledFrom: ZClaimFiledFrom.nullish(),
    options: ZClaimOptions.nullish(),
  })
  .strict()
  .describe('Claim filing (D23)');
export type TClaimFile = z.infer<typeof ZClaimFile>;

export const ZOfflineCustomer = z
  .object({
    email: ZEmail,
    phoneNumber: ZPhone.nullish(),
  })
  .strict();

export const ZOfflineItem = z
  .object({
    sourceProductId: ZId.nullish(),
    sourceVariantId: ZId.nullish(),
    name: ZShortText.nullish(),
    images: ZImages.nullish(),
    sourceItemId: ZId.nullish(),
    sku: ZShortText.nullish(),
    details: ZLongText.nullish(),
    productImage: ZUrl.nullish(),
    price: ZAmount.nullish(),
    subIssueId: ZId.nullish(),
    productDescription: ZLongText.nullish(),
    warrantyPeriod: ZIsoDuration.nullish(),
  })
  .strict();

export const ZWarranty = z
  .object({
    dateOfPurchase: ZDateOrDateTime.describe('ISO 8601 date or date-time'),
    receiptRequired: z.boolean().nullish(),
    receiptImages: ZImages.nullish(),
  })
  .strict();

export const ZShippingAddress = z
  .object({
    firstName: ZShortText.nullish(),
    lastName: ZShortText.nullish(),
    address1: ZShortText.nullish(),
    address2: ZShortText.nullish(),
    city: ZShortText.nullish(),
    zip: z.string().max(32).nullish(),
    country: ZShortText.nullish(),
    state: ZShortText.nullish(),
    stateAbr: z.string().max(16).nullish(),
    countryAbr: z.string().max(16).nullish(),
    lat: z.number().min(-90).max(90).nullish(),
    lng: z.number().min(-180).max(180).nullish(),
    addressOrigin: z.string().max(64).nullish().describe('Value seen: CONCIERGE'),
  })
  .strict();

/** `POST /v1/claims/offline` body (spec, D23). */
export const ZOfflineClaimFile = z
  .object({
    customer: ZOfflineCustomer,
    items: z.array(ZOfflineItem).length(1).describe('Exactly one item (D23)'),
    warranty: ZWarranty,
    shippingAddress: ZShippingAddress.nullish(),
    storeId: ZId.nullish().describe("Must equal the token's store when sent (400 otherwise, D23)"),
    signature: ZUrl.nullish(),
    salesChannel: ZSalesChannel,
    claimCategory: ZClaimCategory,
    issueType: ZIssueType.nullish(),
    resolution: ZResolutionType.nullish(),
    claimFiledFrom: ZClaimFiledFrom.nullish(),
    options: ZClaimOptions.nullish(),
  })
  .strict()
  .describe('Offline claim filing (D23)');
export type TOfflineClaimFile = z.infer<typeof ZOfflineClaimFile>;

/** The offline filing's answer: `{status, payload}`, payload echoing the request (spec). */
export const ZOfflineClaimFiled = z
  .object({
    status: z.literal('ok'),
    payload: z
      .object({
        sourceOrderId: ZId.describe('The generated order reference `offline_…` (D23)'),
        customer: ZOfflineCustomer.required(),
        item: ZOfflineItem.required(),
        warranty: ZWarranty.required(),
        shippingAddress: ZShippingAddress.required().nullable(),
        storeId: ZId,
        signature: z.string().nullable(),
        salesChannel: ZSalesChannel,
        claimCategory: ZClaimCategory,
        issueType: ZIssueType.nullable(),
        resolution: ZResolutionType.nullable(),
      })
      .strict(),
  })
  .strict();
export type TOfflineClaimFiled = z.infer<typeof ZOfflineClaimFiled>;

// ---------------------------------------------------------------------------------------
// Messages and management (D22, D25)
// ---------------------------------------------------------------------------------------

/** `POST /v1/claims/:claimId/messages` body (D25). */
export const ZClaimMessageWrite = z
  .object({
    message: z.string().min(1).max(10_000),
    senderType: ZSenderType,
    authorName: ZShortText.nullish(),
    medias: ZImages.optional().describe('Media URLs, at most 20'),
  })
  .strict();
export type TClaimMessageWrite = z.infer<typeof ZClaimMessageWrite>;

export const ZApproveResolution = z
  .object({
    type: ZResolutionType,
    itemId: ZId.nullish().describe('The claimed item (sourceItemId) this resolution covers'),
    quantity: z.number().int().min(1).max(1_000_000).nullish(),
    paidValue: ZAmount.nullish().describe('Amount paid out; the store credit value for STORE_CREDIT (D26)'),
    paidCurrency: ZCurrency.nullish(),
    includeShipping: z.boolean().nullish(),
    shippingAmount: ZAmount.nullish(),
    details: ZLongText.nullish().describe('Free text'),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.type === 'STORE_CREDIT' && (r.paidValue === undefined || r.paidValue === null)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['paidValue'],
        message: 'paidValue is required for STORE_CREDIT (it is the credit value, D26)',
      });
    }
  });
export type TApproveResolution = z.infer<typeof ZApproveResolution>;

/** `POST /v1/claims/:claimId/approve` body (D22). */
export const ZClaimApprove = z.object({ resolutions: z.array(ZApproveResolution).min(1).max(100) }).strict();
export type TClaimApprove = z.infer<typeof ZClaimApprove>;

/** `POST /v1/claims/:claimId/deny` body (D22). */
export const ZClaimDeny = z
  .object({ reason: ZDenyReason, details: ZLongText.nullish().describe('Free text') })
  .strict();
export type TClaimDeny = z.infer<typeof ZClaimDeny>;

/** `POST /v1/claims/:claimId/transition` body (D22): every move but approve and deny. */
export const ZClaimTransition = z.object({ claimState: ZTransitionTargetState, note: ZLongText.nullish() }).strict();
export type TClaimTransition = z.infer<typeof ZClaimTransition>;

// ---------------------------------------------------------------------------------------
// Claim record (spec "Claim" table, D24)
// ---------------------------------------------------------------------------------------

/** Every claim record carries these (spec); `deletedAt` stays null until a soft delete. */
const recordTimes = {
  createdAt: ZTimestamp,
  updatedAt: ZTimestamp,
  deletedAt: ZTimestamp.nullable(),
};

export const ZClaimItem = z
  .object({
    id: ZId,
    claimId: ZId,
    itemId: z.string().nullable(),
    quantity: z.number().int().nonnegative(),
    issueType: ZIssueType.nullable().describe('The issue filed for this item (D51)'),
    details: z.string().nullable().describe("The shopper's words about this item (D51)"),
    images: z.array(z.string()).describe('Image URLs the shopper sent, as sent (D51)'),
    sourceFulfillmentId: z.string().nullable(),
    sourceProductId: z.string().nullable(),
    sourceVariantId: z.string().nullable(),
    name: z.string().nullable().describe("The order line item's name, when the item names one (D51)"),
    ...recordTimes,
  })
  .strict();
export type TClaimItem = z.infer<typeof ZClaimItem>;

export const ZClaimMessage = z
  .object({
    senderType: ZSenderType,
    id: ZId,
    claimId: ZId,
    message: z.string(),
    authorName: z.string().nullable(),
    medias: z.array(z.string()),
  })
  .strict();
export type TClaimMessage = z.infer<typeof ZClaimMessage>;

export const ZClaimResolution = z
  .object({
    id: ZId,
    claimId: ZId,
    userId: z.string().nullable(),
    resolutionType: ZResolutionType,
    resolutionDetails: z.string().nullable().describe('Free text given at approval'),
    paidValue: ZAmount.nullable(),
    paidCurrency: ZCurrency.nullable(),
    paidOriginalValue: ZAmount.nullable(),
    includeShipping: z.boolean(),
    shippingAmount: ZAmount.nullable(),
    creditStore: z.boolean(),
    ...recordTimes,
  })
  .strict();
export type TClaimResolution = z.infer<typeof ZClaimResolution>;

export const ZClaimStoreCredit = z
  .object({
    code: z.string().describe('Unique store-credit code (D26)'),
    emailStatus: ZEmailStatus,
    emailTime: ZTimestamp.nullable(),
    creditValue: ZAmount.describe('= the resolution paidValue (D26)'),
    bonusValue: ZAmount,
    totalValue: ZAmount,
    bonus: ZAmount.describe('The bonus setting applied: an amount (FLAT) or a percentage (PERCENTAGE)'),
    bonusType: ZBonusType,
    creditCurrency: ZCurrency.nullable(),
    exchangeRate: z.number().finite().positive().nullable(),
    claimId: ZId,
    ...recordTimes,
  })
  .strict();
export type TClaimStoreCredit = z.infer<typeof ZClaimStoreCredit>;

export const ZClaimDocument = z
  .object({
    id: ZId,
    claimId: ZId,
    url: z.string(),
    documentType: ZDocumentType,
    ...recordTimes,
  })
  .strict();
export type TClaimDocument = z.infer<typeof ZClaimDocument>;

export const ZClaimPolicy = z
  .object({
    id: ZId,
    customerAmount: ZAmount,
    brandAmount: ZAmount,
    insuredAmount: ZAmount,
    premiumPaid: ZAmount,
    premiumDiscountedAmount: ZAmount,
    premiumCurrency: ZCurrency.nullable(),
    fundedBy: ZFundedBy,
    claim: z
      .object({ id: ZId, claimState: ZClaimState })
      .strict()
      .describe('The claim this record belongs to (reference)'),
    createdAt: ZTimestamp,
    updatedAt: ZTimestamp,
    removedAt: ZTimestamp.nullable().describe('Set when protection was removed (D19)'),
    deletedAt: ZTimestamp.nullable(),
    hybridOperator: ZHybridOperator,
  })
  .strict();
export type TClaimPolicy = z.infer<typeof ZClaimPolicy>;

/** One claim record (spec "Claim"; `GET /v1/claims/:claimId`, D24). */
export const ZClaim = z
  .object({
    id: ZId,
    claimFiledFrom: ZClaimFiledFrom,
    customerId: z.string().nullable(),
    storeId: ZId,
    orderId: ZId,
    sourceOrderId: ZId,
    sourceOrderNumber: z.string(),
    authorName: z.string().nullable(),
    authorEmail: z.string().nullable(),
    claimDescription: z.string().nullable(),
    resolutionRequested: ZResolutionType.nullable(),
    resolutionDate: ZTimestamp.nullable(),
    claimState: ZClaimState,
    claimType: ZClaimType.nullable(),
    isOta: z.boolean(),
    otaDescription: z.string().nullable(),
    externalSource: z.string().nullable().describe('Value seen: api'),
    policyId: ZId.nullable().describe("The order's active policy at filing, or null (D23)"),
    claimCategory: ZClaimCategory,
    salesChannel: ZSalesChannel,
    denyReason: ZDenyReason.nullable().describe('Why the claim was denied, once it was (D22, D51)'),
    denyDetails: z.string().nullable(),
    ...recordTimes,
    claimItems: z.array(ZClaimItem),
    claimMessages: z.array(ZClaimMessage),
    claimResolutions: z.array(ZClaimResolution),
    claimStoreCredits: z.array(ZClaimStoreCredit),
    claimDocuments: z.array(ZClaimDocument),
    policy: ZClaimPolicy.nullable(),
    viewClaimUrl: z
      .string()
      .url()
      .describe("The shopper's claim page (D41): a link that works without sign-in; send it only to the claimant"),
  })
  .strict()
  .describe('Claim (spec, D24)');
export type TClaim = z.infer<typeof ZClaim>;

// ---------------------------------------------------------------------------------------
// Claim list (spec "Claim list item", D24)
// ---------------------------------------------------------------------------------------

export const ZClaimListResolution = z
  .object({
    id: ZId,
    claimId: ZId,
    resolution: ZResolutionType,
    claimState: ZClaimState,
    ...recordTimes,
  })
  .strict();

export const ZClaimListMessage = z
  .object({
    id: ZId,
    claimId: ZId,
    message: z.string(),
    authorName: z.string().nullable(),
    medias: z.array(z.string()),
  })
  .strict();

export const ZClaimListNode = z
  .object({
    id: ZId,
    storeId: ZId,
    orderId: ZId,
    sourceOrderId: ZId,
    sourceOrderNumber: z.string(),
    authorName: z.string().nullable(),
    authorEmail: z.string().nullable(),
    claimDescription: z.string().nullable(),
    claimState: ZClaimState,
    isOta: z.boolean(),
    otaDescription: z.string().nullable(),
    externalSource: z.string().nullable(),
    claimType: ZClaimType.nullable(),
    ...recordTimes,
    policyId: ZId.nullable(),
    claimResolutions: z.array(ZClaimListResolution),
    claimItems: z.array(ZClaimItem),
    claimMessages: z.array(ZClaimListMessage),
  })
  .strict()
  .describe('Claim list item (spec)');
export type TClaimListNode = z.infer<typeof ZClaimListNode>;

export const ZClaimConnection = connection(ZClaimListNode);
export type TClaimConnection = z.infer<typeof ZClaimConnection>;

/**
 * D51: the claim queue's tabs, each a set of claim states. Together they hold every state
 * once, so a claim is in exactly one tab.
 */
export const CLAIM_QUEUES = {
  to_do: ['NEW', 'OPEN', 'COMMUNICATING', 'WAITING_FOR_BRAND'],
  waiting_on_shopper: ['WAITING_FOR_CUSTOMER'],
  on_hold: ['TEMPORARILY_DISMISSED', 'WAITING_FOR_OP'],
  approved: ['APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND'],
  declined: ['DENIED', 'DISMISSED'],
  closed: ['CLOSED', 'ARCHIVED'],
} as const satisfies Record<string, readonly TClaimState[]>;
export type TClaimQueue = keyof typeof CLAIM_QUEUES;
export const ZClaimQueue = z.enum(Object.keys(CLAIM_QUEUES) as [TClaimQueue, ...TClaimQueue[]]);

/**
 * A query value that may be repeated (`?claimState=NEW&claimState=OPEN`): one value, or the
 * array the query parser makes of several. The reader takes either (`valuesOf`).
 */
const repeated = <T extends z.ZodTypeAny>(item: T, max: number) => z.union([item, z.array(item).min(1).max(max)]);

/** The values of a repeated query parameter (`repeated`), as an array. */
export const valuesOf = <T>(value: T | readonly T[] | undefined): readonly T[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value as T];

/** The list order by `createdAt` (D51): `asc` (oldest first, the default) or `desc`. */
export const ZListOrder = z.enum(['asc', 'desc']);

/** `GET /v1/claims` query: D24 paging plus filters, and the workspace's (D51). */
export const ZClaimListQuery = ZPageQuery.extend({
  claimState: repeated(ZClaimState, CLAIM_STATES.length)
    .optional()
    .describe('Only claims in these states; repeat the parameter for several (D51)'),
  queue: ZClaimQueue.optional().describe(
    'Only claims in this tab of the claim queue (D51); cannot be combined with claimState',
  ),
  q: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("Only the claims whose id, order number or shopper's e-mail is exactly this (D51)"),
  claimType: ZClaimType.optional().describe('Only claims of this type (D51)'),
  order: ZListOrder.optional().describe('By createdAt: asc (oldest first, the default) or desc (D51)'),
  sourceOrderId: ZId.optional(),
  createdAtMin: ZTimestampInput.optional().describe('Claims created at or after'),
  createdAtMax: ZTimestampInput.optional().describe('Claims created at or before'),
  updatedAtMin: ZTimestampInput.optional().describe('Claims updated at or after'),
});
export type TClaimListQuery = z.infer<typeof ZClaimListQuery>;

// ---------------------------------------------------------------------------------------
// The claims workspace (D51): timeline, staff notes, approve preview
// ---------------------------------------------------------------------------------------

/** Who did something on a claim (D51): a dashboard user, an app, the shopper, or the service itself. */
export const ZTimelineActor = z
  .object({
    type: z.enum(['user', 'app', 'shopper', 'system']),
    id: z.string().nullable().describe("A user's id or an app's client id; null for the shopper and the service"),
    name: z.string().nullable(),
  })
  .strict();
export type TTimelineActor = z.infer<typeof ZTimelineActor>;

const entry = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), at: ZTimestamp, actor: ZTimelineActor, ...shape }).strict();

/** A state move with its note (D22, D51). */
export const ZTimelineStateChange = entry('state_change', {
  from: ZClaimState,
  to: ZClaimState,
  note: z.string().nullable(),
});
/** A resolution of an approval (D22, D51). */
export const ZTimelineResolution = entry('resolution', {
  resolutionId: ZId,
  resolutionType: ZResolutionType,
  itemId: z.string().nullable(),
  quantity: z.number().int().nullable(),
  paidValue: ZAmount.nullable(),
  paidCurrency: ZCurrency.nullable(),
  details: z.string().nullable(),
});
/** A store credit issued, with its e-mail's status (D26, D42, D51). */
export const ZTimelineStoreCredit = entry('store_credit', {
  code: z.string(),
  creditValue: ZAmount,
  bonusValue: ZAmount,
  totalValue: ZAmount,
  currency: ZCurrency.nullable(),
  emailStatus: ZEmailStatus,
  emailTime: ZTimestamp.nullable(),
});
/** A message between the shopper and the merchant (D25, D51). */
export const ZTimelineMessage = entry('message', {
  messageId: ZId,
  senderType: ZSenderType,
  message: z.string(),
  medias: z.array(z.string()),
});
/** A staff note (D51). */
export const ZTimelineNote = entry('note', { noteId: ZId, note: z.string() });

/** One entry of a claim's timeline (D51), by `type`. */
export const ZTimelineEntry = z.discriminatedUnion('type', [
  ZTimelineStateChange,
  ZTimelineResolution,
  ZTimelineStoreCredit,
  ZTimelineMessage,
  ZTimelineNote,
]);
export type TTimelineEntry = z.infer<typeof ZTimelineEntry>;

/** `GET /v1/claims/:claimId/timeline` (D51): every entry, oldest first. */
export const ZClaimTimeline = z.array(ZTimelineEntry);
export type TClaimTimeline = z.infer<typeof ZClaimTimeline>;

/** `POST /v1/claims/:claimId/notes` body (D51): a staff note, never shown to the shopper. */
export const ZClaimNoteWrite = z.object({ note: z.string().min(1).max(5000) }).strict();
export type TClaimNoteWrite = z.infer<typeof ZClaimNoteWrite>;

/** A staff note as written (D51). */
export const ZClaimNote = z
  .object({ id: ZId, claimId: ZId, note: z.string(), actor: ZTimelineActor, createdAt: ZTimestamp })
  .strict();
export type TClaimNote = z.infer<typeof ZClaimNote>;

/** What approving with a body would create (D51): the store credits of its `STORE_CREDIT` resolutions (D26). */
export const ZApprovePreview = z
  .object({
    storeCredits: z.array(
      z
        .object({
          resolution: z.number().int().nonnegative().describe("The resolution's index in the body"),
          creditValue: ZAmount,
          bonusValue: ZAmount,
          totalValue: ZAmount,
          bonus: ZAmount.describe('The bonus setting applied: an amount (FLAT) or a percentage (PERCENTAGE)'),
          bonusType: ZBonusType,
          currency: ZCurrency,
          storeCreditType: ZStoreCreditType,
        })
        .strict(),
    ),
  })
  .strict();
export type TApprovePreview = z.infer<typeof ZApprovePreview>;

/** D52: the most rows one export holds. */
export const CLAIM_EXPORT_LIMIT = 100_000;
/** D52: the export's columns, in order. */
export const CLAIM_EXPORT_COLUMNS = [
  'claimId',
  'createdAt',
  'claimState',
  'claimType',
  'sourceOrderId',
  'sourceOrderNumber',
  'authorName',
  'authorEmail',
  'items',
  'resolution',
  'amount',
  'currency',
] as const;

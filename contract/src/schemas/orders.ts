import { z } from 'zod';
import {
  connection,
  ZAmount,
  ZCurrency,
  ZEmail,
  ZId,
  ZPageQuery,
  ZPhone,
  ZPlatformId,
  ZTimestamp,
  ZTimestampInput,
  ZUrl,
} from './common';

/** Short free text (names, numbers, SKUs, carriers). */
const ZShortText = z.string().max(255);

/** Line item quantities: whole units. */
const ZQuantity = z.number().int().min(0).max(1_000_000);

// ---------------------------------------------------------------------------------------
// Orders (spec "Order", D18, D19)
// ---------------------------------------------------------------------------------------

/** D18: a line item, needed to check claim quantities (D23). */
export const ZLineItemWrite = z
  .object({
    sourceItemId: ZId.describe("The platform's line item id; claims name items by it (D23)"),
    sourceProductId: ZId.nullish(),
    sourceVariantId: ZId.nullish(),
    name: ZShortText.nullish(),
    sku: ZShortText.nullish(),
    quantity: ZQuantity.describe('Ordered quantity; a claim may not claim more (D23)'),
    price: ZAmount.nullish().describe('Unit price in major units (D6)'),
    isShippable: z.boolean().nullish(),
  })
  .strict();
export type TLineItemWrite = z.infer<typeof ZLineItemWrite>;

export const ZLineItem = ZLineItemWrite.required()
  .extend({
    claimableQuantity: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "What a new claim may still ask of this item: the quantity less the order's other claims, refused ones excepted (D39, D51)",
      ),
  })
  .strict();
export type TLineItem = z.infer<typeof ZLineItem>;

/** At most 500 line items per order, with distinct `sourceItemId`s. */
export const ZLineItems = z
  .array(ZLineItemWrite)
  .max(500)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.sourceItemId)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [i, 'sourceItemId'],
          message: 'duplicate sourceItemId',
        });
      }
      seen.add(item.sourceItemId);
    });
  });

/** D55: the offer the shopper was shown (its token, from the quote) and what they chose. */
export const ZProtectionOfferWrite = z
  .object({
    token: z
      .string()
      .min(1)
      .max(2048)
      .describe('The `offer.token` of the quote the shopper saw; forged, altered, expired or of another store: 400'),
    selected: z.boolean().describe('Whether the shopper chose protection'),
    preselected: z.boolean().describe('Whether the box was shown checked'),
    decidedAt: ZTimestampInput.describe('When the shopper last chose'),
  })
  .strict();
export type TProtectionOfferWrite = z.infer<typeof ZProtectionOfferWrite>;

/** D55: what the order's shopper was shown and chose, and whether the order's protection matches it. */
export const ZOrderOffer = z
  .object({
    amount: ZAmount.describe('The price shown (what the shopper pays)'),
    currency: ZCurrency,
    widgetConfigId: z.string().nullable(),
    widgetConfigUpdatedAt: ZTimestamp.nullable(),
    partnerApplicationId: z.string().nullable().describe('The cohort (D29), null for the merchant offer'),
    partnerVariantKey: z.string().nullable(),
    preselected: z.boolean(),
    selected: z.boolean(),
    decidedAt: ZTimestamp,
    matchesPolicy: z
      .boolean()
      .describe(
        "Selected and protected at the amount shown, or not selected and not protected; false when the order's protection differs",
      ),
  })
  .strict();
export type TOrderOffer = z.infer<typeof ZOrderOffer>;

/**
 * `PUT /v1/orders/:sourceOrderId` body (spec Order fields, D18). Required:
 * `sourceOrderNumber`, `currency`, `platformId`, `total`, `sourceCreatedAt`; every other field
 * may be omitted or null and is stored as null (the PUT replaces the whole order).
 */
export const ZOrderWrite = z
  .object({
    sourceOrderNumber: z.string().min(1).max(255).describe('Order number on the merchant platform'),
    currency: ZCurrency.describe('ISO 4217 alphabetic code; current and withdrawn codes are accepted'),
    policyCancelledAt: ZTimestampInput.nullish().describe(
      'Set when the protection was cancelled; protection is active while premiumPaid > 0 and this is null (D19)',
    ),
    originalSourceOrderId: ZId.nullish().describe(
      'Set when this order replaces another order; 404 when that order is unknown (D18)',
    ),
    sourceCreatedAt: ZTimestampInput.describe('Creation on the platform'),
    sourceUpdatedAt: ZTimestampInput.nullish(),
    sourceCancelledAt: ZTimestampInput.nullish(),
    platformId: ZPlatformId,
    premiumPaid: ZAmount.nullish().describe('Protection premium paid; > 0 gives active protection (D19)'),
    total: ZAmount.describe('Order total'),
    discountTotal: ZAmount.nullish(),
    shippingCost: ZAmount.nullish(),
    tax: ZAmount.nullish(),
    subtotal: ZAmount.nullish(),
    customerEmail: ZEmail.nullish(),
    customerName: ZShortText.nullish(),
    customerPhone: ZPhone.nullish(),
    shippingCostTax: ZAmount.nullish().describe('Tax on shipping'),
    lineItems: ZLineItems.nullish().describe('At most 500 line items (D18)'),
    protectionOffer: ZProtectionOfferWrite.optional().describe(
      'The offer the shopper saw and their choice (D55); omitted: the recorded offer is kept',
    ),
  })
  .strict()
  .describe('Order write (D18)');
export type TOrderWrite = z.infer<typeof ZOrderWrite>;

export const PROTECTION_STATUSES = ['ACTIVE', 'REMOVED', 'NONE'] as const;
export const ZProtectionStatus = z.enum(PROTECTION_STATUSES);

/** D18, D19: `ACTIVE` with its policy, `REMOVED` (the last policy's id) or `NONE` (null). */
export const ZOrderProtection = z
  .object({
    status: ZProtectionStatus,
    policyId: ZId.nullable().describe('The current or last protection policy, null when none'),
  })
  .strict();
export type TOrderProtection = z.infer<typeof ZOrderProtection>;

/** `GET /v1/orders/:sourceOrderId`: the stored order plus id, storeId, protection, timestamps (D18). */
export const ZOrder = z
  .object({
    id: ZId,
    storeId: ZId,
    sourceOrderId: ZId,
    sourceOrderNumber: z.string(),
    currency: ZCurrency,
    policyCancelledAt: ZTimestamp.nullable(),
    originalSourceOrderId: ZId.nullable(),
    sourceCreatedAt: ZTimestamp,
    sourceUpdatedAt: ZTimestamp.nullable(),
    sourceCancelledAt: ZTimestamp.nullable(),
    platformId: ZPlatformId,
    premiumPaid: ZAmount.nullable(),
    total: ZAmount,
    discountTotal: ZAmount.nullable(),
    shippingCost: ZAmount.nullable(),
    tax: ZAmount.nullable(),
    subtotal: ZAmount.nullable(),
    customerEmail: z.string().nullable(),
    customerName: z.string().nullable(),
    customerPhone: z.string().nullable(),
    shippingCostTax: ZAmount.nullable(),
    lineItems: z.array(ZLineItem).nullable(),
    protection: ZOrderProtection,
    offer: ZOrderOffer.nullable().describe(
      'The protection offer the shopper saw and chose (D55); null when none was recorded',
    ),
    createdAt: ZTimestamp,
    updatedAt: ZTimestamp,
  })
  .strict()
  .describe('Order (D18)');
export type TOrder = z.infer<typeof ZOrder>;

/** `GET /v1/orders` (D51): the store's live orders, newest first, keyset (D24). */
export const ZOrderConnection = connection(ZOrder);
export type TOrderConnection = z.infer<typeof ZOrderConnection>;

/** `GET /v1/orders` query (D51): D24 paging, a search and the creation dates. */
export const ZOrderListQuery = ZPageQuery.extend({
  q: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("Only the orders whose order number or customer's e-mail is exactly this (D51)"),
  createdAtMin: ZTimestampInput.optional().describe('Orders created at or after'),
  createdAtMax: ZTimestampInput.optional().describe('Orders created at or before'),
});
export type TOrderListQuery = z.infer<typeof ZOrderListQuery>;

// ---------------------------------------------------------------------------------------
// Fulfillments (spec "Fulfillment", D20)
// ---------------------------------------------------------------------------------------

/** The 18 fulfillment statuses of the spec. */
export const FULFILLMENT_STATUSES = [
  'DELIVERED',
  'FULFILLED',
  'UNFULFILLED',
  'PARTIALLY_FULFILLED',
  'AWAITING_SHIPMENT',
  'SCHEDULED',
  'ON_HOLD',
  'ATTEMPTED_DELIVERY',
  'CARRIER_PICKED_UP',
  'CONFIRMED',
  'DELAYED',
  'FAILURE',
  'IN_TRANSIT',
  'LABEL_PRINTED',
  'LABEL_PURCHASED',
  'OUT_FOR_DELIVERY',
  'PICKED_UP',
  'READY_FOR_PICKUP',
] as const;
export const ZFulfillmentStatus = z.enum(FULFILLMENT_STATUSES);
export type TFulfillmentStatus = z.infer<typeof ZFulfillmentStatus>;

export const ZFulfillmentItem = z
  .object({
    sourceItemId: ZId,
    quantity: z.number().int().min(1).max(1_000_000),
  })
  .strict();
export type TFulfillmentItem = z.infer<typeof ZFulfillmentItem>;

/**
 * `PUT /v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId` body: the spec's
 * fulfillment fields but `sourceFulfillmentId`, which is the path (D20). `createdAt` and
 * `updatedAt` are set automatically when absent.
 */
export const ZFulfillmentWrite = z
  .object({
    sourceItemIds: z.array(ZFulfillmentItem).max(500).optional().describe('Items and quantities shipped'),
    fulfillmentStatus: ZFulfillmentStatus,
    trackingCompany: ZShortText.nullish().describe('Carrier name'),
    trackingNumber: z.array(ZShortText).max(100).optional(),
    trackingUrl: z.array(ZUrl).max(100).optional(),
    createdAt: ZTimestampInput.optional().describe('Set automatically when absent'),
    updatedAt: ZTimestampInput.optional().describe('Set automatically when absent'),
  })
  .strict()
  .describe('Fulfillment write (D20)');
export type TFulfillmentWrite = z.infer<typeof ZFulfillmentWrite>;

/** A fulfillment as listed; cancelled ones stay with `cancelledAt` set (D20). */
export const ZFulfillment = z
  .object({
    sourceFulfillmentId: ZId,
    sourceItemIds: z.array(ZFulfillmentItem),
    fulfillmentStatus: ZFulfillmentStatus,
    trackingCompany: z.string().nullable(),
    trackingNumber: z.array(z.string()),
    trackingUrl: z.array(z.string()),
    createdAt: ZTimestamp,
    updatedAt: ZTimestamp,
    cancelledAt: ZTimestamp.nullable().describe('Set by DELETE (D20)'),
  })
  .strict()
  .describe('Fulfillment (D20)');
export type TFulfillment = z.infer<typeof ZFulfillment>;

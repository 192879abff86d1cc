import { z } from 'zod';
import { ZAmount, ZCurrencyCode, ZId, ZTimestamp, ZVariantKey } from './common';
import { ZPricingType, ZPublicPriceRule, ZRegionCodesRead, ZRuleOperator } from './pricing';
import { ZProductType } from './products';
import { ZWidgetConfigObject, ZWidgetStatus, ZWidgetType } from './widgets';

/**
 * POST /v2/quote (spec "Quote", D31) and the public insurance read (D29).
 */

/** Most line items one quote may carry (spec). */
export const MAX_QUOTE_LINE_ITEMS = 500;

/** D31: extended-warranty durations, whole years 1 to 10. */
export const QUOTE_DURATIONS = ['P1Y', 'P2Y', 'P3Y', 'P4Y', 'P5Y', 'P6Y', 'P7Y', 'P8Y', 'P9Y', 'P10Y'] as const;
export const ZQuoteDuration = z.enum(QUOTE_DURATIONS);
export type TQuoteDuration = z.infer<typeof ZQuoteDuration>;

/** Years of a D31 duration (`P3Y` → 3). */
export function durationYears(d: TQuoteDuration): number {
  return Number(d.slice(1, -1));
}

/** Line item (spec): price, quantity, isShippable, id?, productType; further fields not shown. */
export const ZQuoteLineItem = z
  .object({
    id: ZId.optional(),
    price: ZAmount,
    quantity: z.number().int().nonnegative().max(1_000_000),
    isShippable: z.boolean().default(true).describe('Dropped from SHIPPING subtotals when false; true when omitted'),
    productType: ZProductType.optional().describe('As on the product (D21, D47); it does not change the quote'),
  })
  .strict();
export type TQuoteLineItem = z.infer<typeof ZQuoteLineItem>;

/**
 * D31 body. At least one of orderTotal and lineItems; lineItems wins when both are sent.
 * `duration` is required for EXTENDED_WARRANTY and rejected for SHIPPING.
 */
export const ZQuoteRequest = z
  .object({
    orderTotal: ZAmount.optional().describe(
      'Pre-computed subtotal; ignored when lineItems is sent. Send orderTotal or lineItems: one of them is required',
    ),
    lineItems: z
      .array(ZQuoteLineItem)
      .max(MAX_QUOTE_LINE_ITEMS)
      .optional()
      .describe(
        'The items to quote, whose prices make the subtotal. Send orderTotal or lineItems: one of them is required',
      ),
    policyType: ZPricingType.default('SHIPPING'),
    currency: ZCurrencyCode.optional().describe(
      "Informational; sets the rounding: the code's minor units, 2 for a code ISO 4217 does not list (D6, D43)",
    ),
    duration: ZQuoteDuration.optional().describe('P1Y..P10Y; required for EXTENDED_WARRANTY, rejected for SHIPPING'),
    variantKey: ZVariantKey.optional().describe("Quote the calling app's cohort price set when it has one (D31)"),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.orderTotal === undefined && b.lineItems === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['orderTotal'],
        message: 'orderTotal or lineItems is required',
      });
    }
    if (b.policyType === 'EXTENDED_WARRANTY' && b.duration === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['duration'],
        message: 'duration is required for EXTENDED_WARRANTY',
      });
    }
    if (b.policyType === 'SHIPPING' && b.duration !== undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['duration'],
        message: 'duration is not accepted for SHIPPING',
      });
    }
  });
export type TQuoteRequest = z.infer<typeof ZQuoteRequest>;
export type TQuoteRequestInput = z.input<typeof ZQuoteRequest>;

const ZMoneyRead = z.number().nonnegative();

/**
 * D31 answer. `currency` is the request's currency, else the store's default (D7). When no
 * rule matches, `eligible` is false, amounts are 0 and `ruleId` is null; `ruleSetId` is null
 * only when no rule set of the type applies at all.
 */
export const ZQuote = z
  .object({
    policyType: ZPricingType,
    currency: ZCurrencyCode,
    subtotal: ZMoneyRead,
    eligible: z.boolean(),
    premium: ZMoneyRead,
    customerAmount: ZMoneyRead,
    brandAmount: ZMoneyRead,
    paidBy: z.string().nullable(),
    operator: ZRuleOperator,
    ruleSetId: z.string().nullable(),
    ruleId: z.string().nullable(),
    duration: ZQuoteDuration.nullable(),
    source: z.enum(['merchant', 'partner']),
    partnerVariantKey: z.string().nullable(),
  })
  .strict();
export type TQuote = z.infer<typeof ZQuote>;

/** D55: a widget config as the storefront element reads it (the cohort's or the merchant's). */
export const ZOfferWidget = z
  .object({
    id: z.string(),
    type: ZWidgetType,
    status: ZWidgetStatus,
    config: ZWidgetConfigObject,
    updatedAt: ZTimestamp,
    source: z.enum(['merchant', 'partner']),
  })
  .strict();
export type TOfferWidget = z.infer<typeof ZOfferWidget>;

/** D55: the placement's widget config (`CART` or `CHECKOUT`) and the `INFO_MODAL` config, each null when missing. */
export const ZOfferWidgets = z.object({ config: ZOfferWidget.nullable(), infoModal: ZOfferWidget.nullable() }).strict();
export type TOfferWidgets = z.infer<typeof ZOfferWidgets>;

/** D55: the offer token (the same within a UTC hour) and when it expires (that hour plus 7 days). */
export const ZOffer = z
  .object({
    token: z
      .string()
      .max(2048)
      .describe('Signed record of what the quote offered; send it back as protectionOffer.token'),
    expiresAt: ZTimestamp,
  })
  .strict();
export type TOffer = z.infer<typeof ZOffer>;

/**
 * D29: the public insurance read (GET /v1/quote/insurance and the path-based partner read).
 * The SHIPPING rule set the shopper's widget prices from; `partnerApplicationId` and
 * `partnerVariantKey` appear only when a cohort resolved (`source: "partner"`), `quote` only
 * when a `subtotal` query parameter was given. Not wrapped (D1).
 */
export const ZInsuranceQuote = z
  .object({
    id: z.string(),
    automaticallyAddToCart: z.boolean(),
    autoAddStateBlockList: ZRegionCodesRead,
    autoAddCountryBlockList: ZRegionCodesRead,
    rules: z.array(ZPublicPriceRule).describe('Sorted by min'),
    source: z.enum(['merchant', 'partner']),
    partnerApplicationId: z.string().optional(),
    partnerVariantKey: z.string().optional(),
    quote: ZQuote.optional(),
    widget: ZOfferWidgets.optional().describe(
      "GET /v1/quote/insurance only: the placement's widget config and the info modal's (D55)",
    ),
    offer: ZOffer.optional().describe(
      'GET /v1/quote/insurance with an eligible subtotal: the signed offer an order may carry back (D55)',
    ),
  })
  .strict();
export type TInsuranceQuote = z.infer<typeof ZInsuranceQuote>;

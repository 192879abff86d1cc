import { z } from 'zod';
import { PRICING_TYPES } from '../scopes';
import { ZAmount, ZId, ZRegionCodes, ZTimestamp, ZVariantKey } from './common';

/**
 * Pricing rule sets (merchant defaults), their price rules, and cohort price sets (D28, D30).
 *
 * Write and read shapes differ on purpose:
 * - on write a rule's amount `type` is `fixed` or `percentage`, and the earlier revision's
 *   `flat` is accepted as an alias and turned into `fixed` (D30);
 * - on read (authenticated routes) a rule is `{id, min, max, minValue, maxValue, terms}`:
 *   the spec says a rule "on read carries minValue and maxValue", so both names are given,
 *   `minValue`/`maxValue` being mirrors of `min`/`max`; the spec's "further fields not
 *   listed" are not exposed;
 * - the public read (D29) keeps the short shape `{id, min, max, terms}` (ZPublicPriceRule).
 */

export const ZPricingType = z.enum(PRICING_TYPES);
export type TPricingType = z.infer<typeof ZPricingType>;

/** Amount calculation on read: `fixed` (major units) or `percentage` of the subtotal (D30). */
export const ZRuleAmountType = z.enum(['fixed', 'percentage']);
export type TRuleAmountType = z.infer<typeof ZRuleAmountType>;

/** On write `flat` (earlier revision) is an alias of `fixed` and is stored as `fixed` (D30). */
export const ZRuleAmountTypeInput = z
  .enum(['fixed', 'percentage', 'flat'])
  .transform((t): TRuleAmountType => (t === 'flat' ? 'fixed' : t))
  .describe('`fixed` or `percentage`; `flat` is accepted as an alias of `fixed` (D30)');

export const ZRuleOperator = z.enum(['AND', 'OR']);
export type TRuleOperator = z.infer<typeof ZRuleOperator>;

/** Who pays (free text in the spec; D31 echoes it in the quote). */
const ZPaidBy = z.string().min(1).max(64);

/** Percentages may not exceed 100 (D30); amounts are >= 0 through ZAmount. */
function percentageAtMost100(v: { amount: number; type: TRuleAmountType }, ctx: z.RefinementCtx): void {
  if (v.type === 'percentage' && v.amount > 100) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['amount'], message: 'a percentage amount must be at most 100' });
  }
}

export const ZPriceTermInput = z
  .object({ amount: ZAmount, type: ZRuleAmountTypeInput })
  .strict()
  .superRefine(percentageAtMost100);
export type TPriceTermInput = z.input<typeof ZPriceTermInput>;

export const ZPriceTermsInput = z
  .object({
    paidBy: ZPaidBy.optional(),
    operator: ZRuleOperator.optional().describe('How customer and brand terms combine; AND when omitted (D31)'),
    customer: ZPriceTermInput.optional(),
    brand: ZPriceTermInput.optional(),
  })
  .strict();

/** A price rule on write: omit `id` to create a rule; `[min, max)` is half-open (D30). */
export const ZPriceRuleInput = z
  .object({
    id: ZId.optional().describe('Omit to create a new rule'),
    min: ZAmount.describe('Lower cart-subtotal bound, inclusive'),
    max: ZAmount.describe('Upper cart-subtotal bound, exclusive'),
    terms: ZPriceTermsInput,
  })
  .strict()
  .superRefine((r, ctx) => {
    if (!(r.min < r.max)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['max'], message: 'max must be greater than min' });
    }
  });
export type TPriceRuleInput = z.input<typeof ZPriceRuleInput>;
export type TPriceRule = z.infer<typeof ZPriceRuleInput>;

/** Most rules one set may hold (D3: request arrays have a bound). */
export const MAX_RULES_PER_SET = 200;

/**
 * A rules array on write: at most MAX_RULES_PER_SET rules whose half-open ranges
 * `[min, max)` do not overlap (D30), and no rule id twice. Issues point at the offending
 * rule (`<index>.min`, `<index>.id`).
 */
export const ZPriceRulesInput = z
  .array(ZPriceRuleInput)
  .max(MAX_RULES_PER_SET)
  .superRefine((rules, ctx) => {
    const order = rules
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => r.min < r.max)
      .sort((a, b) => a.r.min - b.r.min || a.r.max - b.r.max);
    for (let k = 1; k < order.length; k++) {
      const prev = order[k - 1]!;
      const cur = order[k]!;
      if (cur.r.min < prev.r.max) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [cur.i, 'min'],
          message: `rule [${cur.r.min}, ${cur.r.max}) overlaps rule ${prev.i} [${prev.r.min}, ${prev.r.max})`,
        });
      }
    }
    const seen = new Map<string, number>();
    rules.forEach((r, i) => {
      if (r.id === undefined) return;
      const first = seen.get(r.id);
      if (first !== undefined) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'id'], message: `rule id repeats rule ${first}` });
      } else {
        seen.set(r.id, i);
      }
    });
  });

/* ---------------------------------------------------------------- read shapes */

export const ZPriceTerm = z.object({ amount: z.number().nonnegative(), type: ZRuleAmountType }).strict();
export type TPriceTerm = z.infer<typeof ZPriceTerm>;

/** Terms on read: absent parts are null; `operator` is always rendered (AND by default, D31). */
export const ZPriceTerms = z
  .object({
    paidBy: z.string().nullable(),
    operator: ZRuleOperator,
    customer: ZPriceTerm.nullable(),
    brand: ZPriceTerm.nullable(),
  })
  .strict();
export type TPriceTerms = z.infer<typeof ZPriceTerms>;

/** D29: the public rule shape, `[min, max)`. */
export const ZPublicPriceRule = z
  .object({ id: z.string(), min: z.number(), max: z.number(), terms: ZPriceTerms })
  .strict();
export type TPublicPriceRule = z.infer<typeof ZPublicPriceRule>;

/** Authenticated read: the D29 shape plus the spec's `minValue`/`maxValue` (mirrors of min/max). */
export const ZPriceRuleRead = ZPublicPriceRule.extend({
  minValue: z.number().describe('Same as `min` (name used by the spec on read)'),
  maxValue: z.number().describe('Same as `max` (name used by the spec on read)'),
}).strict();
export type TPriceRuleRead = z.infer<typeof ZPriceRuleRead>;

/** Region codes as returned: upper case, 2 letters (spec). */
export const ZRegionCodesRead = z.array(z.string().regex(/^[A-Z]{2}$/)).max(100);

/**
 * A merchant pricing rule set (spec table), plus `updatedAt` (D6). `updatedByApplicationId`
 * is null when the last write came from the dashboard or the set is the seeded default (D30);
 * the spec types it as string, but the seeded sets of D30 have no writing app.
 */
export const ZPricingRuleSet = z
  .object({
    id: z.string(),
    type: ZPricingType,
    automaticallyAddToCart: z.boolean(),
    autoAddStateBlockList: ZRegionCodesRead.describe('ISO 3166-2 region codes, upper case'),
    autoAddCountryBlockList: ZRegionCodesRead.describe('ISO 3166-1 alpha-2 codes, upper case'),
    rules: z.array(ZPriceRuleRead).describe('Sorted by min'),
    updatedByApplicationId: z.string().nullable(),
    updatedAt: ZTimestamp,
  })
  .strict();
export type TPricingRuleSet = z.infer<typeof ZPricingRuleSet>;

/**
 * PUT /v2/pricing/rules/:ruleSetId. Every field optional: an omitted field keeps its value;
 * `rules` replaces the whole list; an empty block list clears blocking (spec).
 */
export const ZPricingRuleSetUpdateBody = z
  .object({
    automaticallyAddToCart: z.boolean().optional(),
    rules: ZPriceRulesInput.optional().describe('Replaces the list; omit to keep the existing rules'),
    autoAddStateBlockList: ZRegionCodes.optional().describe('ISO 3166-2 codes; [] clears, omitted keeps'),
    autoAddCountryBlockList: ZRegionCodes.optional().describe('ISO 3166-1 alpha-2 codes; [] clears, omitted keeps'),
  })
  .strict();
export type TPricingRuleSetUpdateBody = z.infer<typeof ZPricingRuleSetUpdateBody>;

/* ---------------------------------------------------------------- cohort price sets (D28) */

/** A cohort price set: the rule-set shape plus the owning context, `variantKey` and `createdAt`. */
export const ZCohortPriceSet = ZPricingRuleSet.extend({
  contextId: z.string(),
  variantKey: z.string().describe('Cohort key (immutable)'),
  createdAt: ZTimestamp,
}).strict();
export type TCohortPriceSet = z.infer<typeof ZCohortPriceSet>;

/** D28 create: `variantKey` and `type` are required; one set per (variantKey, type), else 409. */
export const ZCohortPriceSetCreateBody = z
  .object({
    variantKey: ZVariantKey,
    type: ZPricingType,
    automaticallyAddToCart: z.boolean().default(false),
    rules: ZPriceRulesInput,
    autoAddStateBlockList: ZRegionCodes.default([]),
    autoAddCountryBlockList: ZRegionCodes.default([]),
  })
  .strict();
export type TCohortPriceSetCreateBody = z.infer<typeof ZCohortPriceSetCreateBody>;

/**
 * D28 update: sparse (omitted fields keep their values; null is not a value). `variantKey`
 * and `type` may be repeated only unchanged; the server answers 400 for a different value.
 */
export const ZCohortPriceSetUpdateBody = z
  .object({
    variantKey: ZVariantKey.optional().describe('Immutable: may only repeat the current value'),
    type: ZPricingType.optional().describe('Immutable: may only repeat the current value'),
    automaticallyAddToCart: z.boolean().optional(),
    rules: ZPriceRulesInput.optional(),
    autoAddStateBlockList: ZRegionCodes.optional(),
    autoAddCountryBlockList: ZRegionCodes.optional(),
  })
  .strict();
export type TCohortPriceSetUpdateBody = z.infer<typeof ZCohortPriceSetUpdateBody>;

import { z } from 'zod';
import { ZAmount, ZName, ZPercentage, ZTimestamp } from './common';
import { ISSUE_TYPES, ZIssueType } from './issue-types';
import { ZPricingRuleSet } from './pricing';

/**
 * Merchant settings (GET /v2/settings) and partner contexts with their sparse overrides
 * (spec "Merchant settings", "Partner context"; D26, D27). Later revision: one context per
 * (store, app); the earlier revision's context `variantKey` is gone.
 */

/** D26: values of StoreCreditType ("not shown" in the spec). */
export const ZStoreCreditType = z.enum(['GIFT_CARD', 'DISCOUNT_CODE']);
export type TStoreCreditType = z.infer<typeof ZStoreCreditType>;

/** Spec CalcMethod: how the store-credit bonus is computed (D26). */
export const ZCalcMethod = z.enum(['flat', 'percentage']);
export type TCalcMethod = z.infer<typeof ZCalcMethod>;

/** Seconds, >= 0 (spec); an integer, at most 2^31-1. */
const ZDurationSeconds = z.number().int().nonnegative().max(2_147_483_647);

/** The writable general settings and their limits (spec "Limits"). */
const settingsFields = {
  enableCancelAfterPurchase: z.boolean(),
  cancelAfterPurchaseDurationSeconds: ZDurationSeconds,
  sendConfirmationEmail: z.boolean(),
  sendSmsUpdates: z.boolean(),
  offerStoreCreditOnServicePurchase: z.boolean(),
  storeCreditType: ZStoreCreditType,
  storeCreditBonus: ZAmount.describe('>= 0; an amount for `flat`, a percentage for `percentage` (D26)'),
  storeCreditBonusType: ZCalcMethod,
  storeCreditMaxPercentage: ZPercentage,
};
export type TSettingsField = keyof typeof settingsFields;

/** Every settings field a partner may override, in spec order. */
export const SETTINGS_FIELDS = Object.keys(settingsFields) as TSettingsField[];

/**
 * The store-credit fields (spec: "the last five store-credit fields require the store-credit
 * scope"). A PATCH carrying any of them needs `store-credit:update` as well.
 */
export const STORE_CREDIT_FIELDS = [
  'offerStoreCreditOnServicePurchase',
  'storeCreditType',
  'storeCreditBonus',
  'storeCreditBonusType',
  'storeCreditMaxPercentage',
] as const satisfies readonly TSettingsField[];
export type TStoreCreditField = (typeof STORE_CREDIT_FIELDS)[number];

/** True when a (parsed) context PATCH body sets any store-credit field. */
export function hasStoreCreditFields(body: Partial<Record<string, unknown>>): boolean {
  return STORE_CREDIT_FIELDS.some((f) => body[f] !== undefined);
}

/**
 * D56: the issue types for which the shopper's claim form asks for photos; a merchant's own
 * setting (an app does not override it). Written as a set: each type at most once, answered
 * in the order of the issue types.
 */
export const ZPhotosRequiredFor = z
  .array(ZIssueType)
  .max(ISSUE_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'each issue type at most once')
  .describe('Issue types for which the shopper claim form requires photos (D56)');

/** D56: the stores' first value of `photosRequiredFor`, the types peers require photos for. */
export const DEFAULT_PHOTOS_REQUIRED_FOR = ['DAMAGED', 'DEFECTIVE_ITEM', 'WRONG_ITEM'] as const;

/** Merchant default settings as read (spec table). */
export const ZMerchantSettings = z
  .object({
    ...settingsFields,
    photosRequiredFor: ZPhotosRequiredFor,
    updatedByApplicationId: z.string().nullable().describe('null when the last write came from the dashboard'),
    updatedAt: ZTimestamp,
  })
  .strict();
export type TMerchantSettings = z.infer<typeof ZMerchantSettings>;

/**
 * PATCH /v1/stores/:storeId/settings (D53): the merchant's own write of its defaults, sparse
 * like a context PATCH, with the same limits; `null` is not a value (400). An empty body
 * changes nothing. `photosRequiredFor` (D56) is written here only: a partner context does not
 * override it.
 */
export const ZMerchantSettingsUpdate = z
  .object({ ...settingsFields, photosRequiredFor: ZPhotosRequiredFor })
  .partial()
  .strict();
export type TMerchantSettingsUpdate = z.infer<typeof ZMerchantSettingsUpdate>;

/** A partner context (later revision): the one installation container of a (store, app). */
export const ZPartnerContext = z
  .object({
    id: z.string(),
    applicationId: z.string().describe("The app's client id (D5)"),
    name: z.string(),
    createdAt: ZTimestamp,
    updatedAt: ZTimestamp.nullable().describe('null until the first update'),
  })
  .strict();
export type TPartnerContext = z.infer<typeof ZPartnerContext>;

/**
 * The partner's own overrides: every settings field, null where inherited from the merchant.
 * Not named by the spec; added so a partner can tell an override from an inherited value.
 */
export const ZSettingsOverrides = z
  .object(
    Object.fromEntries(Object.entries(settingsFields).map(([k, v]) => [k, v.nullable()])) as {
      [K in TSettingsField]: z.ZodNullable<(typeof settingsFields)[K]>;
    },
  )
  .strict();
export type TSettingsOverrides = z.infer<typeof ZSettingsOverrides>;

/** A resolved rule set: a merchant rule set or the cohort's own price set of that type. */
export const ZResolvedPricingRuleSet = ZPricingRuleSet.extend({
  source: z.enum(['merchant', 'partner']).describe('`partner` when the cohort has its own price set of this type'),
  variantKey: z.string().nullable().describe('The cohort of a `partner` set; null for merchant sets'),
}).strict();
export type TResolvedPricingRuleSet = z.infer<typeof ZResolvedPricingRuleSet>;

/**
 * GET and PATCH /v2/settings/context/:contextId: the context plus `resolvedSettings` (merchant
 * settings with the non-null partner overrides on top) and `resolvedPricingRules` for the
 * cohort named by the `variantKey` query parameter (spec). `overrides` and
 * `resolvedVariantKey` are additions (not in the spec).
 */
export const ZPartnerContextResolved = ZPartnerContext.extend({
  overrides: ZSettingsOverrides,
  resolvedSettings: ZMerchantSettings,
  resolvedVariantKey: z.string().nullable().describe('The `variantKey` query parameter, or null (merchant pricing)'),
  resolvedPricingRules: z.array(ZResolvedPricingRuleSet),
}).strict();
export type TPartnerContextResolved = z.infer<typeof ZPartnerContextResolved>;

/** D27: POST /v2/settings/context body. */
export const ZContextCreateBody = z.object({ name: ZName }).strict();
export type TContextCreateBody = z.infer<typeof ZContextCreateBody>;

/**
 * PATCH /v2/settings/context/:contextId (spec, D27): sparse, every field optional; omitted
 * fields stay inherited; `null` is not a value (400). An empty body changes nothing.
 */
export const ZContextUpdateBody = z
  .object({ name: ZName, ...settingsFields })
  .partial()
  .strict();
export type TContextUpdateBody = z.infer<typeof ZContextUpdateBody>;

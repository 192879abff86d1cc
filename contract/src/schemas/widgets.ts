import { z } from 'zod';
import { WIDGET_TYPES } from '../scopes';
import { ZTimestamp, ZVariantKey } from './common';

/**
 * Widget configs: merchant defaults (GET /v2/widget/config, PUT /v2/widget/config/:id) and
 * cohort widget configs (D28). The spec names type, status, variant, name, config and the
 * legacy read-only mirror `customizationValues`; "widget config record fields beyond these:
 * not shown", as are the merchant read shape and update body. Choices made here:
 * - `status` is `ACTIVE` or `INACTIVE` (values not shown in the spec);
 * - `variant` is the widget's design variant (free text, 1-64), not the cohort `variantKey`;
 * - `config` is a free-form JSON object (spec); `customizationValues` mirrors it on read and
 *   is rejected when sent (strict bodies, D3);
 * - the merchant read is `{id, type, status, variant, name, config, customizationValues,
 *   updatedByApplicationId, updatedAt}`, the cohort read adds `contextId`, `variantKey` and
 *   `createdAt`; the merchant update body is sparse like the cohort update (no `type`).
 */

export const ZWidgetType = z.enum(WIDGET_TYPES);
export type TWidgetType = z.infer<typeof ZWidgetType>;

export const ZWidgetStatus = z.enum(['ACTIVE', 'INACTIVE']);
export type TWidgetStatus = z.infer<typeof ZWidgetStatus>;

const ZWidgetVariant = z.string().min(1).max(64).describe('Design variant of the widget (not the cohort key)');
const ZWidgetName = z.string().min(1).max(128);

/** Free-form widget configuration object (spec: `config (object)`). */
export const ZWidgetConfigObject = z.record(z.string(), z.unknown());
export type TWidgetConfigObject = z.infer<typeof ZWidgetConfigObject>;

/** Merchant default widget config, as read (shape not shown in the spec; see above). */
export const ZWidgetConfig = z
  .object({
    id: z.string(),
    type: ZWidgetType,
    status: ZWidgetStatus,
    variant: z.string().nullable(),
    name: z.string().nullable(),
    config: ZWidgetConfigObject,
    customizationValues: ZWidgetConfigObject.describe('Legacy read-only mirror of `config`; rejected if sent'),
    updatedByApplicationId: z.string().nullable().describe('null when the last write came from the dashboard'),
    updatedAt: ZTimestamp,
  })
  .strict();
export type TWidgetConfig = z.infer<typeof ZWidgetConfig>;

/** The writable fields (spec: "Widget update accepts status, variant, name, config"). */
const writable = {
  status: ZWidgetStatus,
  variant: ZWidgetVariant,
  name: ZWidgetName,
  config: ZWidgetConfigObject,
};

/** PUT /v2/widget/config/:id (body not shown in the spec): sparse; omitted fields keep their values. */
export const ZWidgetConfigUpdateBody = z.object(writable).partial().strict();
export type TWidgetConfigUpdateBody = z.infer<typeof ZWidgetConfigUpdateBody>;

/** Cohort widget config (D28): one per (variantKey, type); both immutable. */
export const ZCohortWidgetConfig = ZWidgetConfig.extend({
  contextId: z.string(),
  variantKey: z.string().describe('Cohort key (immutable)'),
  createdAt: ZTimestamp,
}).strict();
export type TCohortWidgetConfig = z.infer<typeof ZCohortWidgetConfig>;

/** D28 create: `variantKey` and `type` required; status defaults to ACTIVE, config to {}. */
export const ZCohortWidgetConfigCreateBody = z
  .object({
    variantKey: ZVariantKey,
    type: ZWidgetType,
    status: ZWidgetStatus.default('ACTIVE'),
    variant: ZWidgetVariant.optional(),
    name: ZWidgetName.optional(),
    config: ZWidgetConfigObject.default({}),
  })
  .strict();
export type TCohortWidgetConfigCreateBody = z.infer<typeof ZCohortWidgetConfigCreateBody>;

/**
 * D28 update: sparse; `variantKey` and `type` may be repeated only unchanged (400 otherwise,
 * checked by the server); `customizationValues` is rejected.
 */
export const ZCohortWidgetConfigUpdateBody = z
  .object({
    variantKey: ZVariantKey.optional().describe('Immutable: may only repeat the current value'),
    type: ZWidgetType.optional().describe('Immutable: may only repeat the current value'),
    ...writable,
  })
  .partial()
  .strict();
export type TCohortWidgetConfigUpdateBody = z.infer<typeof ZCohortWidgetConfigUpdateBody>;

/**
 * Public cohort widget read (GET /v2/widget/config/partner/:applicationId, D29), not wrapped.
 * Internal fields (contextId, updatedByApplicationId, timestamps) are left out; the legacy
 * `customizationValues` mirror stays for storefront scripts that still read it.
 */
export const ZPublicWidgetConfig = z
  .object({
    id: z.string(),
    type: ZWidgetType,
    status: ZWidgetStatus,
    variant: z.string().nullable(),
    name: z.string().nullable(),
    config: ZWidgetConfigObject,
    customizationValues: ZWidgetConfigObject,
    source: z.literal('partner'),
    partnerApplicationId: z.string(),
    partnerVariantKey: z.string(),
  })
  .strict();
export type TPublicWidgetConfig = z.infer<typeof ZPublicWidgetConfig>;

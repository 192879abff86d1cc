import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { publicErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { MAX_HEADER_LENGTH, VARIANT_KEY_PATTERN, ZId, ZQueryNumber, ZVariantKey } from '../schemas/common';
import { ZInsuranceQuote } from '../schemas/quote';
import { ZPublicWidgetConfig, ZWidgetType } from '../schemas/widgets';

const c = initContract();

/**
 * D29: how a public read names its store. Exactly one of `store_url` (the store's domain) and
 * `storeId`. Query objects are not strict: storefronts add cache-busting parameters.
 */
const storeLocator = {
  store_url: z.string().min(1).max(255).optional().describe("The store's domain (D7), as the storefront knows it"),
  storeId: ZId.optional(),
};
function exactlyOneStore(
  q: { store_url?: string | undefined; storeId?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  const n = (q.store_url !== undefined ? 1 : 0) + (q.storeId !== undefined ? 1 : 0);
  if (n !== 1) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['store_url'],
      message: 'give exactly one of store_url and storeId',
    });
  }
}

const ZSubtotal = ZQueryNumber.optional().describe(
  'Cart subtotal; when given the answer carries the quote for that subtotal',
);

export const ZInsuranceQuery = z
  .object({
    ...storeLocator,
    subtotal: ZSubtotal,
    placement: z
      .enum(['cart', 'checkout'])
      .optional()
      .describe("The storefront element's placement: which widget config type `widget.config` is (D55); default cart"),
    partnerAppId: z
      .string()
      .max(MAX_HEADER_LENGTH)
      .optional()
      .describe(
        'Client id of the partner app, as the x-svc-partner-app-id header (D29), for a read with no CORS preflight (D55); when either header is given the headers decide; ignored when malformed',
      ),
    partnerVariant: z
      .string()
      .max(MAX_HEADER_LENGTH)
      .optional()
      .describe(
        'Cohort variant key, as the x-svc-partner-variant header (D29), for a read with no preflight (D55); ignored when malformed',
      ),
  })
  .superRefine(exactlyOneStore);
export const ZPartnerInsuranceQuery = z
  .object({
    ...storeLocator,
    key: ZVariantKey.describe('The cohort variant key (400 when malformed)'),
    subtotal: ZSubtotal,
  })
  .superRefine(exactlyOneStore);
export const ZPartnerWidgetQuery = z
  .object({
    ...storeLocator,
    key: ZVariantKey.describe('The cohort variant key (400 when malformed)'),
    type: ZWidgetType.optional(),
  })
  .superRefine(exactlyOneStore);

/**
 * The cohort headers of the shopper read (D29). Any string is accepted: a missing or
 * malformed value makes the server fall back to merchant defaults silently (spec), so these
 * must never fail validation. The server checks them against the variantKey pattern itself.
 */
export const ZInsuranceHeaders = z.object({
  'x-svc-partner-app-id': z
    .string()
    .max(MAX_HEADER_LENGTH)
    .optional()
    .describe('Client id of the partner app; ignored when malformed'),
  'x-svc-partner-variant': z
    .string()
    .max(MAX_HEADER_LENGTH)
    .optional()
    .describe('Cohort variant key; ignored when malformed'),
  'if-none-match': z.string().max(MAX_HEADER_LENGTH).optional(),
});
const ZConditionalHeaders = z.object({ 'if-none-match': z.string().max(MAX_HEADER_LENGTH).optional() });

/** D43: a malformed application id answers 400; a well-formed one that names no app, 404. */
const ZApplicationParams = z.object({
  applicationId: z
    .string()
    .max(64)
    .regex(VARIANT_KEY_PATTERN, 'must match ^[a-zA-Z0-9_.:-]{1,64}$')
    .describe("The partner app's client id (D5); 400 when malformed (D43)"),
});

const PUBLIC = routeMeta('public', 'plain')('spec', ['D29']);

/** Unauthenticated storefront reads (spec "Public reads", D29); not wrapped (D1). */
export const publicRoutes = routeGroup({
  getInsurance: {
    method: 'GET',
    path: '/v1/quote/insurance',
    query: ZInsuranceQuery,
    headers: ZInsuranceHeaders,
    responses: { 200: ZInsuranceQuote, 304: c.noBody(), ...publicErrors },
    summary: "Read the shopper widget's shipping pricing",
    description:
      "The SHIPPING rule set of the store named by store_url or storeId; the x-svc-partner-app-id and x-svc-partner-variant headers pick a cohort and any problem with them falls back silently to merchant defaults (D29). Also the placement's widget config and the info modal's, and with an eligible subtotal a signed offer token, the same within a UTC hour, that an order write may carry back (D55). Cached (Cache-Control public, max-age=60, ETag; 304 on If-None-Match); an unknown store answers 404.",
    metadata: routeMeta('public', 'plain')('spec', ['D29', 'D55']),
  },
  getPartnerInsurance: {
    method: 'GET',
    path: '/v2/quote/insurance/partner/:applicationId',
    pathParams: ZApplicationParams,
    query: ZPartnerInsuranceQuery,
    headers: ZConditionalHeaders,
    responses: { 200: ZInsuranceQuote, 304: c.noBody(), ...publicErrors },
    summary: "Read a cohort's shipping pricing",
    description:
      'Path-based cohort read: answers 400 for a malformed application id or key and 404 when the app, store, installation, context or cohort price set is missing, instead of falling back (D29, D43).',
    metadata: PUBLIC,
  },
  getPartnerWidgets: {
    method: 'GET',
    path: '/v2/widget/config/partner/:applicationId',
    pathParams: ZApplicationParams,
    query: ZPartnerWidgetQuery,
    headers: ZConditionalHeaders,
    responses: { 200: z.array(ZPublicWidgetConfig), 304: c.noBody(), ...publicErrors },
    summary: "Read a cohort's widget configs",
    description:
      'Path-based cohort widget read, optionally of one type: answers 400 for a malformed application id or key and 404 when the app, store, installation, context or cohort is missing, instead of falling back (D29, D43).',
    metadata: PUBLIC,
  },
});

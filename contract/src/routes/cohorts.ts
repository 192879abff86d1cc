import { z } from 'zod';
import { tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZDeleted, ZId, ZIdempotencyHeaders, ZVariantKey } from '../schemas/common';
import { ZCohortPriceSet, ZCohortPriceSetCreateBody, ZCohortPriceSetUpdateBody } from '../schemas/pricing';
import { ZCohortWidgetConfig, ZCohortWidgetConfigCreateBody, ZCohortWidgetConfigUpdateBody } from '../schemas/widgets';

const tokenRoute = routeMeta('token', 'data');

const ZContextParams = z.object({ contextId: ZId });
const ZPriceSetParams = z.object({ contextId: ZId, priceSetId: ZId });
const ZWidgetParams = z.object({ contextId: ZId, widgetConfigId: ZId });

/** D28: list filter. */
const ZCohortListQuery = z.object({
  variantKey: ZVariantKey.optional().describe('Only the cohort with this key'),
});

const CREATE = { kind: 'perType', action: 'update', requires: 'partner-context:update', onMissing: '403' } as const;
const READ_LIST = { kind: 'perType', action: 'read', onMissing: 'filter', note: 'list filtered by type' } as const;
const READ_ONE = { kind: 'perType', action: 'read', onMissing: '404' } as const;
const WRITE_ONE = { kind: 'perType', action: 'update', requires: 'partner-context:update', onMissing: '404' } as const;

/**
 * Cohort (A/B) price sets and widget configs under the app's partner context (D28).
 * One price set / widget config per (variantKey, type); type and variantKey are immutable.
 */
export const cohortRoutes = routeGroup({
  createPriceSet: {
    method: 'POST',
    path: '/v2/settings/context/:contextId/pricing',
    pathParams: ZContextParams,
    headers: ZIdempotencyHeaders,
    body: ZCohortPriceSetCreateBody,
    responses: { 201: data(ZCohortPriceSet), ...tokenErrors, 409: ZError },
    summary: 'Create a cohort price set',
    description:
      'Creates the price set of one (variantKey, type) cohort; a duplicate answers 409 (D28). Needs partner-context:update and the pricing update scope of the type named in the body (403 otherwise); rules are half-open ranges `[min, max)` that do not overlap, amounts >= 0 and percentages <= 100 (D30).',
    metadata: tokenRoute({ ...CREATE, family: 'pricing' }, 'D28', ['D30', 'D33']),
  },
  listPriceSets: {
    method: 'GET',
    path: '/v2/settings/context/:contextId/pricing',
    pathParams: ZContextParams,
    query: ZCohortListQuery,
    responses: { 200: data(z.array(ZCohortPriceSet)), ...tokenErrors },
    summary: 'List cohort price sets',
    description:
      'Price sets of the context, optionally of one variantKey (D28). Types the token cannot read are filtered out; 403 when it holds no pricing read scope at all.',
    metadata: tokenRoute({ ...READ_LIST, family: 'pricing' }, 'D28'),
  },
  getPriceSet: {
    method: 'GET',
    path: '/v2/settings/context/:contextId/pricing/:priceSetId',
    pathParams: ZPriceSetParams,
    responses: { 200: data(ZCohortPriceSet), ...tokenErrors },
    summary: 'Read a cohort price set',
    description: 'One price set; 404 when its type is not readable by the token (D28).',
    metadata: tokenRoute({ ...READ_ONE, family: 'pricing' }, 'D28'),
  },
  updatePriceSet: {
    method: 'PATCH',
    path: '/v2/settings/context/:contextId/pricing/:priceSetId',
    pathParams: ZPriceSetParams,
    body: ZCohortPriceSetUpdateBody,
    responses: { 200: data(ZCohortPriceSet), ...tokenErrors },
    summary: 'Update a cohort price set',
    description:
      'Sparse update; omitted fields keep their values and rules replaces the list (D30). type and variantKey may only repeat the current values (400 otherwise, D28); 404 when the type is not writable.',
    metadata: tokenRoute({ ...WRITE_ONE, family: 'pricing' }, 'D28', ['D30']),
  },
  deletePriceSet: {
    method: 'DELETE',
    path: '/v2/settings/context/:contextId/pricing/:priceSetId',
    pathParams: ZPriceSetParams,
    responses: { 200: data(ZDeleted), ...tokenErrors },
    summary: 'Delete a cohort price set',
    description:
      'Hard delete; the cohort falls back to the merchant rule set of that type (D28). 404 when the type is not writable.',
    metadata: tokenRoute({ ...WRITE_ONE, family: 'pricing' }, 'D28', ['D1']),
  },
  createWidget: {
    method: 'POST',
    path: '/v2/settings/context/:contextId/widgets',
    pathParams: ZContextParams,
    headers: ZIdempotencyHeaders,
    body: ZCohortWidgetConfigCreateBody,
    responses: { 201: data(ZCohortWidgetConfig), ...tokenErrors, 409: ZError },
    summary: 'Create a cohort widget config',
    description:
      'Creates the widget config of one (variantKey, type) cohort; a duplicate answers 409 (D28). Needs partner-context:update and the widget update scope of the type named in the body (403 otherwise).',
    metadata: tokenRoute({ ...CREATE, family: 'widget' }, 'D28', ['D33']),
  },
  listWidgets: {
    method: 'GET',
    path: '/v2/settings/context/:contextId/widgets',
    pathParams: ZContextParams,
    query: ZCohortListQuery,
    responses: { 200: data(z.array(ZCohortWidgetConfig)), ...tokenErrors },
    summary: 'List cohort widget configs',
    description:
      'Widget configs of the context, optionally of one variantKey (D28). Types the token cannot read are filtered out; 403 when it holds no widget read scope at all.',
    metadata: tokenRoute({ ...READ_LIST, family: 'widget' }, 'D28'),
  },
  getWidget: {
    method: 'GET',
    path: '/v2/settings/context/:contextId/widgets/:widgetConfigId',
    pathParams: ZWidgetParams,
    responses: { 200: data(ZCohortWidgetConfig), ...tokenErrors },
    summary: 'Read a cohort widget config',
    description: 'One widget config; 404 when its type is not readable by the token (D28).',
    metadata: tokenRoute({ ...READ_ONE, family: 'widget' }, 'D28'),
  },
  updateWidget: {
    method: 'PATCH',
    path: '/v2/settings/context/:contextId/widgets/:widgetConfigId',
    pathParams: ZWidgetParams,
    body: ZCohortWidgetConfigUpdateBody,
    responses: { 200: data(ZCohortWidgetConfig), ...tokenErrors },
    summary: 'Update a cohort widget config',
    description:
      'Sparse update of status, variant, name and config; customizationValues is read-only and rejected. type and variantKey may only repeat the current values (400 otherwise, D28); 404 when the type is not writable.',
    metadata: tokenRoute({ ...WRITE_ONE, family: 'widget' }, 'D28'),
  },
  deleteWidget: {
    method: 'DELETE',
    path: '/v2/settings/context/:contextId/widgets/:widgetConfigId',
    pathParams: ZWidgetParams,
    responses: { 200: data(ZDeleted), ...tokenErrors },
    summary: 'Delete a cohort widget config',
    description:
      'Hard delete; the cohort falls back to the merchant widget config of that type (D28). 404 when the type is not writable.',
    metadata: tokenRoute({ ...WRITE_ONE, family: 'widget' }, 'D28', ['D1']),
  },
});

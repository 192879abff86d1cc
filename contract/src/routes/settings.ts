import { z } from 'zod';
import { tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZDeleted, ZId, ZIdempotencyHeaders, ZVariantKey } from '../schemas/common';
import {
  ZContextCreateBody,
  ZContextUpdateBody,
  ZMerchantSettings,
  ZPartnerContext,
  ZPartnerContextResolved,
} from '../schemas/settings';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'data');

const ZContextParams = z.object({ contextId: ZId });

/** Selects which cohort's pricing the resolved view renders (spec). */
const ZContextViewQuery = z.object({
  variantKey: ZVariantKey.optional().describe(
    'Cohort whose price sets resolvedPricingRules renders; merchant rule sets when omitted',
  ),
});

/** Merchant settings (read only in the later revision) and the app's partner context (spec, D27). */
export const settingsRoutes = routeGroup({
  get: {
    method: 'GET',
    path: '/v2/settings',
    responses: { 200: data(ZMerchantSettings), ...tokenErrors },
    summary: 'Read the merchant default settings',
    description:
      'The merchant default general settings of the store. Partners have no write path for merchant defaults in the later revision. Wrapped in `data`.',
    metadata: tokenRoute(anyOf('store:read'), 'spec', ['D1', 'D26']),
  },
  createContext: {
    method: 'POST',
    path: '/v2/settings/context',
    headers: ZIdempotencyHeaders,
    body: ZContextCreateBody,
    responses: { 201: data(ZPartnerContext), ...tokenErrors, 409: ZError },
    summary: 'Create the partner context',
    description:
      'Creates the one partner context of this (store, app) with a name of 1-128 characters; a second create answers 409 (D27). Accepts an Idempotency-Key (D33).',
    metadata: tokenRoute(anyOf('partner-context:update'), 'spec', ['D27', 'D33']),
  },
  listContexts: {
    method: 'GET',
    path: '/v2/settings/context',
    responses: { 200: data(z.array(ZPartnerContext)), ...tokenErrors },
    summary: 'List partner contexts',
    description: 'The contexts owned by the calling app for this store (at most one in the later revision, D27).',
    metadata: tokenRoute(anyOf('store:read'), 'spec', ['D27']),
  },
  getContext: {
    method: 'GET',
    path: '/v2/settings/context/:contextId',
    pathParams: ZContextParams,
    query: ZContextViewQuery,
    responses: { 200: data(ZPartnerContextResolved), ...tokenErrors },
    summary: 'Read a partner context with its resolved settings',
    description:
      'The context plus resolvedSettings (merchant settings with non-null overrides on top) and resolvedPricingRules for the cohort named by variantKey: its own price sets where it has them, otherwise the merchant rule sets. Does not consult the app-installation off-switch.',
    metadata: tokenRoute(anyOf('store:read'), 'spec', ['D28']),
  },
  updateContext: {
    method: 'PATCH',
    path: '/v2/settings/context/:contextId',
    pathParams: ZContextParams,
    query: ZContextViewQuery,
    body: ZContextUpdateBody,
    responses: { 200: data(ZPartnerContextResolved), ...tokenErrors },
    summary: 'Update the partner context overrides',
    description:
      'Sparse: omitted fields stay inherited, sent fields become overrides for the whole installation, null answers 400 (D27). Store-credit fields also need store-credit:update; variantKey only selects which cohort pricing is rendered.',
    metadata: tokenRoute(
      {
        kind: 'conditional',
        base: 'partner-context:update',
        extra: 'store-credit:update',
        when: 'store-credit fields',
      },
      'spec',
      ['D27'],
    ),
  },
  deleteContext: {
    method: 'DELETE',
    path: '/v2/settings/context/:contextId',
    pathParams: ZContextParams,
    responses: { 200: data(ZDeleted), ...tokenErrors },
    summary: 'Delete the partner context',
    description: 'Soft delete; later traffic falls back to merchant defaults. Answers {data:{ok:true}} (D1).',
    metadata: tokenRoute(anyOf('partner-context:update'), 'spec', ['D1']),
  },
});

import { z } from 'zod';
import { tokenErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZId } from '../schemas/common';
import { ZPricingRuleSet, ZPricingRuleSetUpdateBody } from '../schemas/pricing';

const tokenRoute = routeMeta('token', 'data');

/** Merchant default pricing rule sets (spec "Pricing rules"; D30). */
export const pricingRoutes = routeGroup({
  list: {
    method: 'GET',
    path: '/v2/pricing/rules',
    responses: { 200: data(z.array(ZPricingRuleSet)), ...tokenErrors },
    summary: 'List merchant pricing rule sets',
    description:
      'The rule sets whose type the token can read; others are silently filtered out. Pricing scopes are admin-gated (D9, D16).',
    metadata: tokenRoute(
      { kind: 'perType', family: 'pricing', action: 'read', onMissing: 'filter', note: 'list filtered by type' },
      'spec',
      ['D30'],
    ),
  },
  update: {
    method: 'PUT',
    path: '/v2/pricing/rules/:ruleSetId',
    pathParams: z.object({ ruleSetId: ZId }),
    body: ZPricingRuleSetUpdateBody,
    responses: { 200: data(z.array(ZPricingRuleSet)), ...tokenErrors },
    summary: 'Update a merchant pricing rule set',
    description:
      'Omitted fields keep their values; rules replaces the list; an empty block list clears blocking. Rules are non-overlapping [min, max) ranges, fixed or percentage (flat accepted as fixed) (D30). Answers an array holding the updated set (spec); 404 when the type is not writable.',
    metadata: tokenRoute(
      { kind: 'perType', family: 'pricing', action: 'update', onMissing: '404', note: '404 when missing' },
      'spec',
      ['D30'],
    ),
  },
});

import { tokenErrors, ZError } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import { data, ZIdempotencyHeaders } from '../schemas/common';
import { ZQuote, ZQuoteRequest } from '../schemas/quote';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'data');

/** Stateless protection quote (spec "Quote", D31). */
export const quoteRoutes = routeGroup({
  create: {
    method: 'POST',
    path: '/v2/quote',
    headers: ZIdempotencyHeaders,
    body: ZQuoteRequest,
    responses: { 201: data(ZQuote), ...tokenErrors, 409: ZError },
    summary: 'Compute a protection quote',
    description:
      "Prices a cart from lineItems (non-shippable items dropped for SHIPPING) or orderTotal; EXTENDED_WARRANTY needs a P1Y..P10Y duration, SHIPPING rejects one. An optional variantKey quotes the calling app's cohort price set (D31).",
    metadata: tokenRoute(anyOf('quote:read'), 'spec', ['D31', 'D33']),
  },
});

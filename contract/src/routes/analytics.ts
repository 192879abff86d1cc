import { z } from 'zod';
import { tokenErrors } from '../errors';
import { routeGroup, routeMeta } from '../meta';
import {
  ZAnalyticsSeries,
  ZAnalyticsSeriesQuery,
  ZAnalyticsSummary,
  ZAnalyticsSummaryQuery,
  ZOfferResult,
  ZOfferResultsQuery,
} from '../schemas/analytics';
import { data, ZId } from '../schemas/common';
import { anyOf } from '../scopes';

const tokenRoute = routeMeta('token', 'data');
const PERIOD =
  '`from` and `to` are days (YYYY-MM-DD), both included, in UTC (stores have no time zone); at most 366 days (400 otherwise).';

/** The store's figures (D52); the store, and so live or test data, comes from the token (D7, D45). */
export const analyticsRoutes = routeGroup({
  summary: {
    method: 'GET',
    path: '/v1/analytics/summary',
    query: ZAnalyticsSummaryQuery,
    responses: { 200: data(ZAnalyticsSummary), ...tokenErrors },
    summary: "The store's figures for a period",
    description: `Orders, protected orders and attach rate, premiums per currency, claims, claim rate, approval rate, median hours to the first decision, amounts paid out per resolution type and currency, and the top five issue types, products and carriers of the claims. ${PERIOD} Rates are fractions, null when their denominator is 0; an empty period answers zeros.`,
    metadata: tokenRoute(anyOf('analytics:read'), 'D52'),
  },
  series: {
    method: 'GET',
    path: '/v1/analytics/series',
    query: ZAnalyticsSeriesQuery,
    responses: { 200: data(ZAnalyticsSeries), ...tokenErrors },
    summary: "The store's counts per day, week or month",
    description: `Orders, protected orders and claims per point, every point of the period present (0 when empty); weeks start on Monday, and the first and last points count only the days inside the period. ${PERIOD}`,
    metadata: tokenRoute(anyOf('analytics:read'), 'D52'),
  },
  offers: {
    method: 'GET',
    path: '/v1/analytics/offers',
    query: ZOfferResultsQuery,
    responses: { 200: data(z.array(ZOfferResult)), ...tokenErrors },
    summary: 'What the storefront offer sold, per offer source',
    description: `Per offer source (the merchant's offer, and each cohort: app and variant key), the orders placed in the period that carried an offer, how many selected it, the select rate, the share shown preselected and the premiums of the orders that selected it per currency. ${PERIOD}`,
    metadata: tokenRoute(anyOf('analytics:read'), 'D55', ['D52']),
  },
  offerResults: {
    method: 'GET',
    path: '/v2/settings/context/:contextId/offer-results',
    pathParams: z.object({ contextId: ZId }),
    query: ZOfferResultsQuery,
    responses: { 200: data(z.array(ZOfferResult)), ...tokenErrors },
    summary: "What the app's cohorts sold on the store",
    description: `The offer results of the calling app's own cohorts on the context's store (another app's context answers 404). ${PERIOD}`,
    metadata: tokenRoute(anyOf('partner-context:update'), 'D55', ['D52', 'D7']),
  },
});

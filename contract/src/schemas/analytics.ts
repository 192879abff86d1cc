import { z } from 'zod';
import { ZCurrencyCode } from './common';

/** D52: the longest period one call may cover, both days included. */
export const MAX_ANALYTICS_DAYS = 366;
export const ANALYTICS_INTERVALS = ['day', 'week', 'month'] as const;
export type AnalyticsInterval = (typeof ANALYTICS_INTERVALS)[number];

const DAY_MS = 86_400_000;
const ZDay = z
  .string()
  .max(10)
  .date()
  .describe("A calendar day, YYYY-MM-DD, in the store's time zone (UTC: stores have no time zone of their own)");

/** Days from `from` to `to`, both included. */
export function analyticsDays(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
}

const ZPeriod = z.object({ from: ZDay, to: ZDay });
function checkPeriod(value: { from: string; to: string }, ctx: z.RefinementCtx): void {
  const days = analyticsDays(value.from, value.to);
  if (days < 1) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  else if (days > MAX_ANALYTICS_DAYS)
    ctx.addIssue({
      code: 'custom',
      path: ['to'],
      message: `the period covers ${days} days; at most ${MAX_ANALYTICS_DAYS} (D52)`,
    });
}

export const ZAnalyticsSummaryQuery = ZPeriod.superRefine(checkPeriod);
export const ZAnalyticsSeriesQuery = ZPeriod.extend({
  interval: z.enum(ANALYTICS_INTERVALS).describe('The length of each point: day, week (from Monday) or month'),
}).superRefine(checkPeriod);

/** D6: an exact decimal in the currency's minor units, written as a string so no float rounds it. */
const ZMoneyText = z
  .string()
  .max(40)
  .regex(/^\d+(\.\d+)?$/)
  .describe('An exact decimal amount in major units, with the currency\'s minor units (`"12.50"`)');
const ZRate = z
  .number()
  .min(0)
  .nullable()
  .describe('A fraction (0.4, not 40), to 4 decimals; null when nothing was there to divide by');
const ZName = z.string().max(255);
const ZCount = z.number().int().nonnegative();

export const ZAnalyticsSummary = z
  .object({
    from: ZDay,
    to: ZDay,
    orders: ZCount.describe('Orders placed in the period'),
    protectedOrders: ZCount.describe('Of those, the orders with a protection policy'),
    attachRate: ZRate.describe('protectedOrders ÷ orders; null when there were no orders'),
    premiums: z
      .array(z.object({ currency: ZCurrencyCode, amount: ZMoneyText }).strict())
      .describe('Premiums of the protected orders, one entry per currency, never added across currencies'),
    claims: ZCount.describe('Claims filed in the period'),
    claimRate: ZRate.describe('claims ÷ protectedOrders; null when there were no protected orders'),
    approvalRate: ZRate.describe(
      "Of the period's claims that were decided, the approved fraction (first decision); null when none was decided",
    ),
    medianHoursToDecision: z
      .number()
      .nonnegative()
      .nullable()
      .describe("Median hours from filing to the first decision of the period's decided claims, to 2 decimals"),
    paidOut: z
      .array(z.object({ resolutionType: ZName, currency: ZCurrencyCode, amount: ZMoneyText }).strict())
      .describe('Resolutions made in the period, per resolution type and currency'),
    topIssueTypes: z.array(z.object({ issueType: ZName, claims: ZCount }).strict()),
    topProducts: z.array(z.object({ sourceProductId: ZName, name: ZName.nullable(), claims: ZCount }).strict()),
    topCarriers: z.array(z.object({ carrier: ZName, claims: ZCount }).strict()),
  })
  .strict();
export type TAnalyticsSummary = z.infer<typeof ZAnalyticsSummary>;

export const ZAnalyticsPoint = z
  .object({
    start: ZDay.describe('The first day of the point (a Monday for weeks, the 1st for months)'),
    orders: ZCount,
    protectedOrders: ZCount,
    claims: ZCount,
  })
  .strict();
export const ZAnalyticsSeries = z
  .object({
    interval: z.enum(ANALYTICS_INTERVALS),
    points: z.array(ZAnalyticsPoint).describe('Every point of the period, oldest first, empty ones 0'),
  })
  .strict();
export type TAnalyticsSeries = z.infer<typeof ZAnalyticsSeries>;

/** D55: the period of the offer results, by D52's rules. */
export const ZOfferResultsQuery = ZPeriod.superRefine(checkPeriod);

/** D55: what one offer source (the merchant's offer, or one cohort) sold in a period. */
export const ZOfferResult = z
  .object({
    source: z.enum(['merchant', 'partner']),
    partnerApplicationId: z.string().nullable().describe('The cohort app, null for the merchant offer'),
    partnerVariantKey: z.string().nullable(),
    offered: ZCount.describe("Orders placed in the period that carried this source's offer"),
    selected: ZCount.describe('Of those, the orders whose shopper chose protection'),
    selectRate: ZRate.describe('selected ÷ offered; null when nothing was offered'),
    preselectedShare: ZRate.describe('The share of the offers shown preselected; null when nothing was offered'),
    premiums: z
      .array(z.object({ currency: ZCurrencyCode, amount: ZMoneyText }).strict())
      .describe('Premiums of the protected orders that selected the offer, one entry per currency'),
  })
  .strict();
export type TOfferResult = z.infer<typeof ZOfferResult>;
export type TOfferResultsQuery = z.infer<typeof ZOfferResultsQuery>;

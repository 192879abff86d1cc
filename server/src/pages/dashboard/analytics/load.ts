import type { TAnalyticsSeries, TAnalyticsSummary, TOfferResult } from '@protection-service/contract';
import { unwrap } from '@protection-service/sdk';
import type { StorePage } from '../handlers';

/** The periods offered, as links (no script), with the point length of their charts (D52). */
export const PRESETS = [
  { days: 30, interval: 'day' },
  { days: 90, interval: 'week' },
  { days: 365, interval: 'month' },
] as const;
export type Preset = (typeof PRESETS)[number];

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The period of a preset: its days to today (UTC), both included (D52). */
export interface Period {
  from: string;
  to: string;
}

/** The preset the query names (`?days=`), else the first. */
export function presetOf(days: unknown): Preset {
  return PRESETS.find((p) => String(p.days) === days) ?? PRESETS[0];
}

/** What the page shows of a period: the summary, the chart's points, and the storefront offer's results (D52, D55). */
export interface Analytics {
  period: Period;
  summary: TAnalyticsSummary;
  series: TAnalyticsSeries;
  offers: TOfferResult[];
}

/** Reads the period's figures through the API (D52), in parallel. */
export async function loadAnalytics(api: StorePage['api'], preset: Preset, now = Date.now()): Promise<Analytics> {
  const period = { from: day(now - (preset.days - 1) * DAY_MS), to: day(now) };
  const [summary, series, offers] = await Promise.all([
    api.client.analytics.summary({ query: period }).then(unwrap),
    api.client.analytics.series({ query: { ...period, interval: preset.interval } }).then(unwrap),
    api.client.analytics.offers({ query: period }).then(unwrap),
  ]);
  return { period, summary: summary.data, series: series.data, offers: offers.data };
}

import {
  type AnalyticsInterval,
  minorUnits,
  type TAnalyticsSeries,
  type TAnalyticsSummary,
} from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { decimal, roundToCurrency } from '../../lib/money';
import { countedRows, rollupRows, rollupWatermark } from './rollups';

/**
 * D52: a store's figures over a period of days, both included. Stores have no time zone of
 * their own, so days are UTC days. Orders count by the day the shop placed them
 * (`source_created_at`), claims by the day they were filed, amounts paid out by the day of
 * the resolution. Sums of money run in SQL `numeric` and come back as text, one per currency:
 * no float ever holds a sum and no sum mixes currencies.
 */
export interface Period {
  from: string;
  to: string;
}

/** The first and day after the last day of the period, as UTC instants. */
export function periodBounds({ from, to }: Period): { start: RawBuilder<Date>; end: RawBuilder<Date> } {
  return {
    start: sql<Date>`(${from}::date)::timestamp at time zone 'UTC'`,
    end: sql<Date>`(${to}::date + 1)::timestamp at time zone 'UTC'`,
  };
}

interface Counts {
  orders: string;
  protectedOrders: string;
  claims: string;
  decided: string;
  approved: string;
  medianHours: string | null;
  premiums: { currency: string; amount: string }[];
}

/** A fraction to 4 decimals, null when there is nothing to divide by (D52: "not applicable", not 0). */
export function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

/** An SQL numeric sum as the currency's exact decimal string (D6): "12.5" USD → "12.50". */
export function moneyText(sum: string, currency: string): string {
  const scale = minorUnits(currency);
  const rounded = roundToCurrency(decimal(sum), currency);
  const digits = (rounded.units * 10n ** BigInt(scale - rounded.scale)).toString().padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** The period's days as dates, for the rollups (D52: UTC days, both included). */
const days = ({ from, to }: Period) => ({ first: sql<string>`${from}::date`, last: sql<string>`${to}::date` });

/**
 * The counts and the premiums per currency, added up from the day rollups (rollups.ts, kept by
 * the fold): a few rows per day, not every order of the period. The median cannot be added up
 * by day; it reads the hours to a first decision the fold's claim ledger keeps per claim,
 * through its index by store and day (what changed since the fold read from the claims).
 */
async function counts(db: Db, storeId: string, p: Period, watermark: string): Promise<Counts> {
  const { first, last } = days(p);
  const { rows } = await sql<Counts>`
    with od as (
      select currency, sum(orders) as orders, sum(protected_orders) as protected_orders, sum(premiums) as premiums
      from ${rollupRows('analytics_order_days', watermark)} r where store_id = ${storeId} and day between ${first} and ${last} group by currency
    ), cd as (
      select sum(claims) as claims, sum(decided) as decided, sum(approved) as approved
      from ${rollupRows('analytics_claim_days', watermark)} r where store_id = ${storeId} and day between ${first} and ${last}
    ), h as (
      select decision_hours from ${countedRows('analytics_claim_days', watermark)} r
      where store_id = ${storeId} and day between ${first} and ${last} and decision_hours is not null
    )
    select
      (select coalesce(json_agg(json_build_object('currency', currency, 'amount', premiums::text) order by currency), '[]')
       from od where protected_orders > 0) as premiums,
      (select coalesce(sum(orders), 0) from od)::text as orders,
      (select coalesce(sum(protected_orders), 0) from od)::text as protected_orders,
      coalesce(cd.claims, 0)::text as claims,
      coalesce(cd.decided, 0)::text as decided,
      coalesce(cd.approved, 0)::text as approved,
      (select round((percentile_cont(0.5) within group (order by decision_hours))::numeric, 2)::text
       from h) as median_hours
    from cd`.execute(db);
  return rows[0]!;
}

/** Paid out per resolution type and currency, from the day rollups. */
async function paidOut(db: Db, storeId: string, p: Period, watermark: string): Promise<TAnalyticsSummary['paidOut']> {
  const { first, last } = days(p);
  const { rows } = await sql<{ resolutionType: string; currency: string; amount: string }>`
    select resolution_type, currency, sum(amount)::text as amount
    from ${rollupRows('analytics_paid_days', watermark)} r where store_id = ${storeId} and day between ${first} and ${last}
    group by 1, 2 having sum(resolutions) > 0 order by 1, 2`.execute(db);
  return rows.map((r) => ({
    resolutionType: r.resolutionType,
    currency: r.currency,
    amount: moneyText(r.amount, r.currency),
  }));
}

const TOP = 5;

/**
 * The period's claims per issue type, product and carrier, most claims first (ties by name),
 * three statements side by side on the pool. Each counts the distinct (claim, name) pairs of
 * the period's claim items (hashed, where `count(distinct)` sorted every item per name), and
 * only the first products are looked up for their names.
 */
async function tops(db: Db, storeId: string, p: Period) {
  const { start, end } = periodBounds(p);
  const items = sql`
    select c.id as claim_id, ci.issue_type, ci.source_product_id, ci.source_fulfillment_id, c.order_id
    from claims c join claim_items ci on ci.claim_id = c.id and ci.deleted_at is null
    where c.store_id = ${storeId} and c.deleted_at is null and c.created_at >= ${start} and c.created_at < ${end}`;
  const [issues, products, carriers] = await Promise.all([
    sql<{ issueType: string; claims: string }>`
      with i as (${items}) select issue_type, count(*)::text as claims
      from (select distinct claim_id, issue_type from i where issue_type is not null) d
      group by 1 order by count(*) desc, 1 limit ${TOP}`.execute(db),
    sql<{ sourceProductId: string; name: string | null; claims: string }>`
      with i as (${items}), top as (
        select source_product_id, count(*) as claims
        from (select distinct claim_id, source_product_id from i where source_product_id is not null) d
        group by 1 order by count(*) desc, 1 limit ${TOP}
      )
      select t.source_product_id, pr.name, t.claims::text as claims
      from top t left join products pr on pr.store_id = ${storeId} and pr.product_id = t.source_product_id
      order by t.claims desc, 1`.execute(db),
    sql<{ carrier: string; claims: string }>`
      with i as (${items}) select tracking_company as carrier, count(*)::text as claims from (
        select distinct i.claim_id, f.tracking_company from i
        join fulfillments f on f.order_id = i.order_id and f.source_fulfillment_id = i.source_fulfillment_id
        where f.tracking_company is not null
      ) d group by 1 order by count(*) desc, 1 limit ${TOP}`.execute(db),
  ]);
  const n = <T extends { claims: string }>(rows: T[]) => rows.map((r) => ({ ...r, claims: Number(r.claims) }));
  return { topIssueTypes: n(issues.rows), topProducts: n(products.rows), topCarriers: n(carriers.rows) };
}

/** `GET /v1/analytics/summary` (D52). */
export async function analyticsSummary(db: Db, storeId: string, p: Period): Promise<TAnalyticsSummary> {
  const watermark = await rollupWatermark(db);
  const [c, paid, top] = await Promise.all([
    counts(db, storeId, p, watermark),
    paidOut(db, storeId, p, watermark),
    tops(db, storeId, p),
  ]);
  const [orders, protectedOrders, claims] = [Number(c.orders), Number(c.protectedOrders), Number(c.claims)];
  return {
    from: p.from,
    to: p.to,
    orders,
    protectedOrders,
    attachRate: rate(protectedOrders, orders),
    premiums: c.premiums.map((m) => ({ currency: m.currency, amount: moneyText(m.amount, m.currency) })),
    claims,
    claimRate: rate(claims, protectedOrders),
    approvalRate: rate(Number(c.approved), Number(c.decided)),
    medianHoursToDecision: c.medianHours === null ? null : Number(c.medianHours),
    paidOut: paid,
    ...top,
  };
}

/** `GET /v1/analytics/series` (D52): every point of the period, empty ones 0. */
export async function analyticsSeries(
  db: Db,
  storeId: string,
  p: Period & { interval: AnalyticsInterval },
): Promise<TAnalyticsSeries> {
  const unit = sql.lit(p.interval);
  const { first, last } = days(p);
  const watermark = await rollupWatermark(db);
  const bucket = sql`date_trunc(${unit}, day::timestamp)::date`;
  const { rows } = await sql<{ start: string; orders: string; protectedOrders: string; claims: string }>`
    with b as (
      select generate_series(date_trunc(${unit}, ${first}::timestamp), ${last}::timestamp, ${sql.lit(`1 ${p.interval}`)}::interval)::date as start
    ), od as (
      select ${bucket} as start, sum(orders) as orders, sum(protected_orders) as protected_orders
      from ${rollupRows('analytics_order_days', watermark)} r where store_id = ${storeId} and day between ${first} and ${last} group by 1
    ), cd as (
      select ${bucket} as start, sum(claims) as claims
      from ${rollupRows('analytics_claim_days', watermark)} r where store_id = ${storeId} and day between ${first} and ${last} group by 1
    )
    select to_char(b.start, 'YYYY-MM-DD') as start, coalesce(od.orders, 0)::text as orders,
      coalesce(od.protected_orders, 0)::text as protected_orders, coalesce(cd.claims, 0)::text as claims
    from b left join od on od.start = b.start left join cd on cd.start = b.start order by b.start`.execute(db);
  return {
    interval: p.interval,
    points: rows.map((r) => ({
      start: r.start,
      orders: Number(r.orders),
      protectedOrders: Number(r.protectedOrders),
      claims: Number(r.claims),
    })),
  };
}

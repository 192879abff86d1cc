import {
  type AnalyticsInterval,
  minorUnits,
  type TAnalyticsSeries,
  type TAnalyticsSummary,
} from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { decimal, roundToCurrency } from '../../lib/money';

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
function bounds({ from, to }: Period): { start: RawBuilder<Date>; end: RawBuilder<Date> } {
  return {
    start: sql<Date>`(${from}::date)::timestamp at time zone 'UTC'`,
    end: sql<Date>`(${to}::date + 1)::timestamp at time zone 'UTC'`,
  };
}

/** D22: the states a first decision moves a claim to; the first three approve it. */
const APPROVING = sql`('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND')`;
const DECIDING = sql`('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED')`;

/** Live orders of the store in the period, with whether a live policy protects each. */
function periodOrders(storeId: string, p: Period): RawBuilder<unknown> {
  const { start, end } = bounds(p);
  return sql`
    select o.id, o.source_created_at as at, o.currency, pp.premium_paid, pp.premium_currency,
      pp.id is not null as protected
    from orders o
    -- At most one live policy per order (protection_policies_active_key): a join, not a loop.
    left join protection_policies pp on pp.order_id = o.id and pp.removed_at is null and pp.deleted_at is null
    where o.store_id = ${storeId} and o.deleted_at is null
      and o.source_created_at >= ${start} and o.source_created_at < ${end}`;
}

/** Claims of the store filed in the period, with their first decision if any. */
function periodClaims(storeId: string, p: Period): RawBuilder<unknown> {
  const { start, end } = bounds(p);
  return sql`
    select c.id, c.created_at as at, d.to_state, d.created_at as decided_at
    from claims c
    left join lateral (
      select to_state, created_at from claim_state_changes
      where claim_id = c.id and to_state in ${DECIDING}
      order by id limit 1
    ) d on true
    where c.store_id = ${storeId} and c.deleted_at is null
      and c.created_at >= ${start} and c.created_at < ${end}`;
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
function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

/** An SQL numeric sum as the currency's exact decimal string (D6): "12.5" USD → "12.50". */
export function moneyText(sum: string, currency: string): string {
  const scale = minorUnits(currency);
  const rounded = roundToCurrency(decimal(sum), currency);
  const digits = (rounded.units * 10n ** BigInt(scale - rounded.scale)).toString().padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** The counts and the premiums per currency, in one pass over the period's orders. */
async function counts(db: Db, storeId: string, p: Period): Promise<Counts> {
  const { rows } = await sql<Counts>`
    with o as (${periodOrders(storeId, p)}), c as (${periodClaims(storeId, p)})
    select
      (select coalesce(json_agg(json_build_object('currency', currency, 'amount', amount::text) order by currency), '[]')
       from (select coalesce(premium_currency, currency) as currency, sum(premium_paid) as amount
             from o where protected group by 1) s) as premiums,
      (select count(*) from o)::text as orders,
      (select count(*) from o where protected)::text as protected_orders,
      (select count(*) from c)::text as claims,
      (select count(*) from c where to_state is not null)::text as decided,
      (select count(*) from c where to_state in ${APPROVING})::text as approved,
      (select round((percentile_cont(0.5) within group (
        order by extract(epoch from decided_at - at) / 3600))::numeric, 2)::text
       from c where decided_at is not null) as median_hours`.execute(db);
  return rows[0]!;
}

async function paidOut(db: Db, storeId: string, p: Period): Promise<TAnalyticsSummary['paidOut']> {
  const { start, end } = bounds(p);
  const { rows } = await sql<{ resolutionType: string; currency: string; amount: string }>`
    select r.resolution_type, coalesce(r.paid_currency, o.currency) as currency, sum(r.paid_value)::text as amount
    from claim_resolutions r
    join claims c on c.id = r.claim_id
    join orders o on o.id = c.order_id
    where c.store_id = ${storeId} and c.deleted_at is null and r.deleted_at is null
      and r.paid_value is not null and r.created_at >= ${start} and r.created_at < ${end}
    group by 1, 2 order by 1, 2`.execute(db);
  return rows.map((r) => ({
    resolutionType: r.resolutionType,
    currency: r.currency,
    amount: moneyText(r.amount, r.currency),
  }));
}

const TOP = 5;

/** The period's claims per issue type, product and carrier, most claims first (ties by name). */
async function tops(db: Db, storeId: string, p: Period) {
  const { start, end } = bounds(p);
  const items = sql`
    select c.id as claim_id, ci.issue_type, ci.source_product_id, ci.source_fulfillment_id, c.order_id
    from claims c join claim_items ci on ci.claim_id = c.id and ci.deleted_at is null
    where c.store_id = ${storeId} and c.deleted_at is null and c.created_at >= ${start} and c.created_at < ${end}`;
  const [issues, products, carriers] = await Promise.all([
    sql<{ issueType: string; claims: string }>`
      with i as (${items}) select issue_type, count(distinct claim_id)::text as claims
      from i where issue_type is not null group by 1 order by count(distinct claim_id) desc, 1 limit ${TOP}`.execute(
      db,
    ),
    sql<{ sourceProductId: string; name: string | null; claims: string }>`
      with i as (${items}) select i.source_product_id, max(pr.name) as name, count(distinct i.claim_id)::text as claims
      from i left join products pr on pr.store_id = ${storeId} and pr.product_id = i.source_product_id
      where i.source_product_id is not null group by 1 order by count(distinct i.claim_id) desc, 1 limit ${TOP}`.execute(
      db,
    ),
    sql<{ carrier: string; claims: string }>`
      with i as (${items}) select f.tracking_company as carrier, count(distinct i.claim_id)::text as claims
      from i join fulfillments f on f.order_id = i.order_id and f.source_fulfillment_id = i.source_fulfillment_id
      where f.tracking_company is not null group by 1 order by count(distinct claim_id) desc, 1 limit ${TOP}`.execute(
      db,
    ),
  ]);
  const n = <T extends { claims: string }>(rows: T[]) => rows.map((r) => ({ ...r, claims: Number(r.claims) }));
  return { topIssueTypes: n(issues.rows), topProducts: n(products.rows), topCarriers: n(carriers.rows) };
}

/** `GET /v1/analytics/summary` (D52). */
export async function analyticsSummary(db: Db, storeId: string, p: Period): Promise<TAnalyticsSummary> {
  const [c, paid, top] = await Promise.all([counts(db, storeId, p), paidOut(db, storeId, p), tops(db, storeId, p)]);
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
  const { rows } = await sql<{ start: string; orders: string; protectedOrders: string; claims: string }>`
    with o as (${periodOrders(storeId, p)}), c as (${periodClaims(storeId, p)}),
    b as (
      select generate_series(date_trunc(${unit}, ${p.from}::date), ${p.to}::date, ${sql.lit(`1 ${p.interval}`)}::interval)::date as start
    )
    select to_char(b.start, 'YYYY-MM-DD') as start,
      (select count(*) from o where date_trunc(${unit}, o.at at time zone 'UTC')::date = b.start)::text as orders,
      (select count(*) from o where protected and date_trunc(${unit}, o.at at time zone 'UTC')::date = b.start)::text as protected_orders,
      (select count(*) from c where date_trunc(${unit}, c.at at time zone 'UTC')::date = b.start)::text as claims
    from b order by b.start`.execute(db);
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

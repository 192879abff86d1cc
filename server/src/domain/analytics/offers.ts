import type { TOfferResult } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { moneyText, type Period, periodBounds, rate } from './summary';

interface SourceRow {
  partnerApplicationId: string | null;
  partnerVariantKey: string | null;
  offered: string;
  selected: string;
  preselected: string;
  premiums: { currency: string; amount: string }[];
}

/**
 * D55: what each offer source sold in a period: the live orders placed in it (by the shop,
 * `source_created_at` in UTC days, D52) that carried an offer, grouped by cohort (the
 * merchant's offer has none). Read at request time through the order offers' (store,
 * placed_at) index, so the order write keeps no rollup of it. Premiums are those of the
 * orders that selected the offer and are protected (D19), summed in `numeric` per currency.
 * `clientId` limits the sources to one app's cohorts (the partner's read).
 */
export async function offerResults(
  db: Db,
  storeId: string,
  period: Period,
  clientId: string | null = null,
): Promise<TOfferResult[]> {
  const { start, end } = periodBounds(period);
  const result = await sql<SourceRow>`
    with offers as (
      select f.partner_application_id, f.partner_variant_key, f.selected, f.preselected,
        o.currency, case when f.selected and o.premium_paid > 0 and o.policy_cancelled_at is null
          then o.premium_paid end as premium
      from order_offers f
      join orders o on o.id = f.order_id and o.deleted_at is null
      where f.store_id = ${storeId} and f.placed_at >= ${start} and f.placed_at < ${end}
        ${clientId === null ? sql`` : sql`and f.partner_application_id = ${clientId}`}
    ),
    premiums as (
      select partner_application_id, partner_variant_key, currency, sum(premium)::text as amount
      from offers where premium is not null
      group by partner_application_id, partner_variant_key, currency
    )
    select s.partner_application_id, s.partner_variant_key, s.offered::text, s.selected::text,
      s.preselected::text,
      coalesce((
        select json_agg(json_build_object('currency', p.currency, 'amount', p.amount) order by p.currency)
        from premiums p
        where p.partner_application_id is not distinct from s.partner_application_id
          and p.partner_variant_key is not distinct from s.partner_variant_key
      ), '[]') as premiums
    from (
      select partner_application_id, partner_variant_key, count(*) as offered,
        count(*) filter (where selected) as selected, count(*) filter (where preselected) as preselected
      from offers group by partner_application_id, partner_variant_key
    ) s
    -- By code point, whatever the database's collation: the same order on every install.
    order by s.partner_application_id collate "C" nulls first, s.partner_variant_key collate "C" nulls first
  `.execute(db);
  return result.rows.map((r) => {
    const offered = Number(r.offered);
    const selected = Number(r.selected);
    return {
      source: r.partnerApplicationId === null ? 'merchant' : 'partner',
      partnerApplicationId: r.partnerApplicationId,
      partnerVariantKey: r.partnerVariantKey,
      offered,
      selected,
      selectRate: rate(selected, offered),
      preselectedShare: rate(Number(r.preselected), offered),
      premiums: r.premiums.map((p) => ({ currency: p.currency, amount: moneyText(p.amount, p.currency) })),
    };
  });
}

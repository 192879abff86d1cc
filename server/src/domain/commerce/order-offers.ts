import type { TProtectionOfferWrite } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { OfferFields, OfferRefusal, OfferTokens } from '../../lib/offer-tokens';
import { refuse } from '../../lib/refusal';

/** D55: an order's offer, its token verified: what the quote showed and what the shopper chose. */
export interface OrderOffer {
  fields: OfferFields;
  selected: boolean;
  preselected: boolean;
  decidedAt: string;
}

const REFUSALS: Record<OfferRefusal, string> = {
  forged: 'is not an offer token this service issued, or was altered',
  store: "is another store's offer token",
  expired: 'has expired: offer tokens are valid for 7 days',
};

/**
 * The order write's offer, its token checked before anything is written: a forged, altered,
 * other store's or expired token answers 400 naming the field (D55).
 */
export function verifiedOffer(
  tokens: OfferTokens,
  storeId: string,
  offer: TProtectionOfferWrite | undefined,
): OrderOffer | undefined {
  if (offer === undefined) return undefined;
  const fields = tokens.verify(offer.token, storeId);
  if (typeof fields === 'string') throw refuse.invalidAt('body.protectionOffer.token', REFUSALS[fields]);
  return { fields, selected: offer.selected, preselected: offer.preselected, decidedAt: offer.decidedAt };
}

/**
 * Inserts or replaces the offer of the order `orderRef` names (`from` joins what that needs,
 * as `from o` inside the order's own statement); `placedAt` is the order's
 * `source_created_at`, by which the results count it (D52, D55).
 */
export function offerUpsert(
  orderRef: RawBuilder<unknown>,
  storeId: string,
  placedAt: string,
  offer: OrderOffer,
  from: RawBuilder<unknown>,
) {
  const f = offer.fields;
  return sql`
    insert into order_offers (
      order_id, store_id, placed_at, policy_type, amount, currency, subtotal, rule_set_id, rule_id,
      widget_config_id, widget_config_updated_at, partner_application_id, partner_variant_key,
      preselected, selected, decided_at
    )
    select ${orderRef}, ${storeId}, ${placedAt}::timestamptz, ${f.policyType}, ${f.amount}::numeric,
      ${f.currency}, ${f.subtotal}::numeric, ${f.ruleSetId}, ${f.ruleId}, ${f.widgetConfigId},
      ${f.widgetConfigUpdatedAt}::timestamptz, ${f.partnerApplicationId}, ${f.partnerVariantKey},
      ${offer.preselected}, ${offer.selected}, ${offer.decidedAt}::timestamptz
    ${from}
    on conflict (order_id) do update set
      placed_at = excluded.placed_at, policy_type = excluded.policy_type, amount = excluded.amount,
      currency = excluded.currency, subtotal = excluded.subtotal, rule_set_id = excluded.rule_set_id,
      rule_id = excluded.rule_id, widget_config_id = excluded.widget_config_id,
      widget_config_updated_at = excluded.widget_config_updated_at,
      partner_application_id = excluded.partner_application_id,
      partner_variant_key = excluded.partner_variant_key, preselected = excluded.preselected,
      selected = excluded.selected, decided_at = excluded.decided_at, updated_at = now()`;
}

import type { TInsuranceQuote } from '@protection-service/contract';
import type { Db } from '../db/database';
import { byMin, renderTerms } from './pricing';
import { priceQuote } from './quote';
import { findStore } from './stores';

export interface StoreLocator {
  store_url?: string;
  storeId?: string;
}

/**
 * The shopper widget's read (D29): the store's SHIPPING rule set, rules sorted by `min`,
 * with a D31 quote when a subtotal is given. Null when the store is unknown.
 *
 * Cohort selection by the partner headers falls back to the merchant rule set: until a
 * store has partner contexts there is no cohort to resolve (spec: fall back silently).
 */
export async function readInsurance(db: Db, locator: StoreLocator, subtotal?: number): Promise<TInsuranceQuote | null> {
  const store = await findStore(db, { id: locator.storeId, domain: locator.store_url });
  if (!store) return null;
  const ruleSet = await db
    .selectFrom('pricingRuleSets')
    .select(['id', 'automaticallyAddToCart', 'autoAddStateBlockList', 'autoAddCountryBlockList', 'rules'])
    .where('storeId', '=', store.id)
    .where('type', '=', 'SHIPPING')
    .executeTakeFirstOrThrow();
  const rules = [...ruleSet.rules].sort(byMin);
  const answer: TInsuranceQuote = {
    id: ruleSet.id,
    automaticallyAddToCart: ruleSet.automaticallyAddToCart,
    autoAddStateBlockList: ruleSet.autoAddStateBlockList,
    autoAddCountryBlockList: ruleSet.autoAddCountryBlockList,
    rules: rules.map((r) => ({ id: r.id, min: r.min, max: r.max, terms: renderTerms(r.terms) })),
    source: 'merchant',
  };
  if (subtotal !== undefined) {
    const price = priceQuote(rules, { policyType: 'SHIPPING', orderTotal: subtotal }, store.currency);
    answer.quote = {
      policyType: 'SHIPPING',
      currency: store.currency,
      ...price,
      ruleSetId: ruleSet.id,
      duration: null,
      source: 'merchant',
      partnerVariantKey: null,
    };
  }
  return answer;
}

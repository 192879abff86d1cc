import type { PricingType, TQuote, TQuoteRequest } from '@protection-service/contract';
import type { StoreCache } from '../../cache/store-cache';
import type { Db } from '../../db/database';
import type { PriceRuleRow } from '../../db/schema';
import { refuse } from '../../lib/refusal';
import { byMin } from './pricing';
import { priceQuote } from './quote';

/**
 * Which rule set prices a cart: a cohort's own price set when the app's live context has one
 * for the variant key (D28, D29, D31), else the merchant rule set of the type.
 */
export interface PricingSource {
  id: string;
  automaticallyAddToCart: boolean;
  autoAddStateBlockList: string[];
  autoAddCountryBlockList: string[];
  /** Sorted by min. */
  rules: PriceRuleRow[];
  source: 'merchant' | 'partner';
  variantKey: string | null;
}

const SOURCE_COLUMNS = [
  'id',
  'automaticallyAddToCart',
  'autoAddStateBlockList',
  'autoAddCountryBlockList',
  'rules',
] as const;

export async function merchantSource(db: Db, storeId: string, type: PricingType): Promise<PricingSource | undefined> {
  const row = await db
    .selectFrom('pricingRuleSets')
    .select(SOURCE_COLUMNS)
    .where('storeId', '=', storeId)
    .where('type', '=', type)
    .executeTakeFirst();
  return row && { ...row, rules: [...row.rules].sort(byMin), source: 'merchant', variantKey: null };
}

/**
 * The cohort price set of (store, app, variantKey, type) in the app's live context. With
 * `installed`, only while the app is installed on the store (the public reads, D29; a token
 * route needs no such check: an uninstalled app's tokens are refused already, D14).
 */
export async function cohortSource(
  db: Db,
  cohort: { storeId: string; clientId: string; variantKey: string; type: PricingType; installed?: boolean },
): Promise<PricingSource | undefined> {
  let q = db
    .selectFrom('partnerContexts as c')
    .innerJoin('cohortPriceSets as p', 'p.contextId', 'c.id')
    .select(SOURCE_COLUMNS.map((col) => `p.${col}` as const))
    .where('c.storeId', '=', cohort.storeId)
    .where('c.clientId', '=', cohort.clientId)
    .where('c.deletedAt', 'is', null)
    .where('p.variantKey', '=', cohort.variantKey)
    .where('p.type', '=', cohort.type);
  if (cohort.installed) {
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('installations as i')
          .select('i.id')
          .whereRef('i.storeId', '=', 'c.storeId')
          .whereRef('i.clientId', '=', 'c.clientId')
          .where('i.uninstalledAt', 'is', null),
      ),
    );
  }
  const row = await q.executeTakeFirst();
  return row && { ...row, rules: [...row.rules].sort(byMin), source: 'partner', variantKey: cohort.variantKey };
}

const NO_RULES: PricingSource = {
  id: '',
  automaticallyAddToCart: false,
  autoAddStateBlockList: [],
  autoAddCountryBlockList: [],
  rules: [],
  source: 'merchant',
  variantKey: null,
};

/** The D31 answer for a rule set and a request. */
export function quoteWith(
  source: PricingSource,
  request: Pick<TQuoteRequest, 'policyType' | 'lineItems' | 'orderTotal' | 'duration'>,
  currency: string,
): TQuote {
  return {
    policyType: request.policyType,
    currency,
    ...priceQuote(source.rules, request, currency),
    ruleSetId: source.id,
    duration: request.duration ?? null,
    source: source.source,
    partnerVariantKey: source.variantKey,
  };
}

/** What a quote of one (store, app, variantKey, policy type) prices from. */
export interface QuotePricing {
  currency: string;
  source: PricingSource | undefined;
}

async function quotePricing(
  db: Db,
  caller: { storeId: string; clientId: string | null },
  variantKey: string | undefined,
  type: PricingType,
): Promise<QuotePricing | undefined> {
  const store = await db.selectFrom('stores').select('currency').where('id', '=', caller.storeId).executeTakeFirst();
  if (!store) return undefined;
  const source =
    (variantKey !== undefined && caller.clientId !== null
      ? await cohortSource(db, { storeId: caller.storeId, clientId: caller.clientId, variantKey, type })
      : undefined) ?? (await merchantSource(db, caller.storeId, type));
  return { currency: store.currency, source };
}

/**
 * POST /v2/quote (D31): the calling app's cohort price set of the policy type when
 * `variantKey` names one, else the merchant rule set; the request's currency, else the
 * store's. Refused (404) when the store is unknown. What it prices from is kept in `cache`
 * until the store changes (../store-cache.ts), so a quote needs no query.
 */
export async function createQuote(
  db: Db,
  cache: StoreCache<QuotePricing>,
  /** `clientId` null for a staff token (D49): no app, so no cohort. */
  caller: { storeId: string; clientId: string | null },
  request: TQuoteRequest,
): Promise<TQuote> {
  const key = `${caller.storeId}\n${caller.clientId}\n${request.variantKey ?? ''}\n${request.policyType}`;
  const pricing = await cache.load(key, caller.storeId, () =>
    quotePricing(db, caller, request.variantKey, request.policyType),
  );
  if (!pricing) throw refuse.missing('store not found');
  const currency = request.currency ?? pricing.currency;
  // D31: without any rule set of the type (every store starts with one, D30): not eligible, ruleSetId null.
  if (!pricing.source) return { ...quoteWith(NO_RULES, request, currency), ruleSetId: null };
  return quoteWith(pricing.source, request, currency);
}

import type { TInsuranceQuote, TPublicWidgetConfig, WidgetType } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { refuse } from '../../lib/refusal';
import { findStore, type Store } from '../identity/stores';
import { renderTerms } from './pricing';
import { cohortSource, merchantSource, type PricingSource, quoteWith } from './pricing-source';

interface StoreLocator {
  store_url?: string | undefined;
  storeId?: string | undefined;
}

export interface Cohort {
  applicationId: string;
  variantKey: string;
}

/** A public answer and the store it belongs to (the cache drops it when that store changes). */
export interface PublicRead<T> {
  storeId: string;
  body: T;
}

/** The store the locator names; an unknown one is refused (404). */
async function locatedStore(db: Db, locator: StoreLocator): Promise<Store> {
  const store = await findStore(db, { id: locator.storeId, domain: locator.store_url });
  if (!store) throw refuse.missing('store not found');
  return store;
}

const NO_COHORT = 'cohort not found';

function insuranceAnswer(source: PricingSource, applicationId: string | null): TInsuranceQuote {
  return {
    id: source.id,
    automaticallyAddToCart: source.automaticallyAddToCart,
    autoAddStateBlockList: source.autoAddStateBlockList,
    autoAddCountryBlockList: source.autoAddCountryBlockList,
    rules: source.rules.map((r) => ({ id: r.id, min: r.min, max: r.max, terms: renderTerms(r.terms) })),
    source: source.source,
    ...(source.source === 'partner' && applicationId !== null
      ? { partnerApplicationId: applicationId, partnerVariantKey: source.variantKey! }
      : {}),
  };
}

/**
 * The shopper widget's SHIPPING pricing (D29), with a D31 quote when a subtotal is given.
 * `cohort` selects a partner cohort: its price set answers when the app is installed, has a
 * live context on the store and the cohort has a SHIPPING price set. Otherwise the merchant
 * rule set answers when `fallback` (the header read: silently); the path read is refused (404).
 */
export async function readInsurance(
  db: Db,
  locator: StoreLocator,
  options: { subtotal?: number | undefined; cohort?: Cohort | undefined; fallback: boolean },
): Promise<PublicRead<TInsuranceQuote>> {
  const store = await locatedStore(db, locator);
  const { cohort } = options;
  let source =
    cohort &&
    (await cohortSource(db, {
      storeId: store.id,
      clientId: cohort.applicationId,
      variantKey: cohort.variantKey,
      type: 'SHIPPING',
      installed: true,
    }));
  if (!source) {
    if (!options.fallback) throw refuse.missing(NO_COHORT);
    source = await merchantSource(db, store.id, 'SHIPPING');
    if (!source) throw new Error(`store ${store.id} has no SHIPPING rule set`);
  }
  const body = insuranceAnswer(source, cohort?.applicationId ?? null);
  if (options.subtotal !== undefined) {
    body.quote = quoteWith(source, { policyType: 'SHIPPING', orderTotal: options.subtotal }, store.currency);
  }
  return { storeId: store.id, body };
}

/**
 * The cohort's widget configs (D29 path read), optionally of one type; refused (404) when the
 * app is not installed, has no live context, or the cohort has no config (of that type).
 */
export async function readPartnerWidgets(
  db: Db,
  locator: StoreLocator,
  cohort: Cohort,
  type: WidgetType | undefined,
): Promise<PublicRead<TPublicWidgetConfig[]>> {
  const store = await locatedStore(db, locator);
  let q = db
    .selectFrom('partnerContexts as c')
    .innerJoin('cohortWidgetConfigs as w', 'w.contextId', 'c.id')
    .innerJoin('installations as i', (join) =>
      join
        .onRef('i.storeId', '=', 'c.storeId')
        .onRef('i.clientId', '=', 'c.clientId')
        .on('i.uninstalledAt', 'is', null),
    )
    .select(['w.id', 'w.type', 'w.status', 'w.variant', 'w.name', 'w.config'])
    .where('c.storeId', '=', store.id)
    .where('c.clientId', '=', cohort.applicationId)
    .where('c.deletedAt', 'is', null)
    .where('w.variantKey', '=', cohort.variantKey);
  if (type !== undefined) q = q.where('w.type', '=', type);
  const rows = await q.orderBy('w.type').execute();
  if (rows.length === 0) throw refuse.missing(NO_COHORT);
  return {
    storeId: store.id,
    body: rows.map((r) => ({
      id: r.id,
      type: r.type,
      status: r.status as TPublicWidgetConfig['status'],
      variant: r.variant,
      name: r.name,
      config: r.config,
      customizationValues: r.config,
      source: 'partner' as const,
      partnerApplicationId: cohort.applicationId,
      partnerVariantKey: cohort.variantKey,
    })),
  };
}

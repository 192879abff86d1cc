import type {
  TInsuranceQuote,
  TOfferWidget,
  TOfferWidgets,
  TPublicWidgetConfig,
  WidgetType,
} from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { currentHour, type OfferTokens } from '../../lib/offer-tokens';
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
 * D55: the widget configs of `type` and `INFO_MODAL` the storefront element shows: per type,
 * the cohort's when the app is installed with a live context that has one, else the
 * merchant's (as D29 falls back). One query for both types and both sources.
 */
async function offerWidgets(
  db: Db,
  storeId: string,
  cohort: Cohort | undefined,
  type: 'CART' | 'CHECKOUT',
): Promise<TOfferWidgets> {
  const types = [type, 'INFO_MODAL'];
  const cohortRows = cohort
    ? sql`union all
      select w.id, w.type, w.status, w.config, w.updated_at, 'partner' as source
      from partner_contexts c join cohort_widget_configs w on w.context_id = c.id
      where c.store_id = ${storeId} and c.client_id = ${cohort.applicationId} and c.deleted_at is null
        and w.variant_key = ${cohort.variantKey} and w.type = any(${types}::text[])
        and exists (select 1 from installations i where i.store_id = c.store_id and i.client_id = c.client_id
          and i.uninstalled_at is null)`
    : sql``;
  const rows = (
    await sql<Omit<TOfferWidget, 'updatedAt'> & { updatedAt: Date }>`
      select id, type, status, config, updated_at, 'merchant' as source from widget_configs
      where store_id = ${storeId} and type = any(${types}::text[])
      ${cohortRows}`.execute(db)
  ).rows;
  const pick = (t: string): TOfferWidget | null => {
    const row = rows.find((r) => r.type === t && r.source === 'partner') ?? rows.find((r) => r.type === t);
    return row ? { ...row, updatedAt: row.updatedAt.toISOString() } : null;
  };
  return { config: pick(type), infoModal: pick('INFO_MODAL') };
}

/** What the storefront element asks besides the quote (D55): its placement, and the tokens to sign the offer with. */
export interface OfferRequest {
  placement: 'cart' | 'checkout';
  tokens: OfferTokens;
}

/**
 * D55: the widget configs on the answer and, when the quote is eligible, the offer token
 * binding what it showed, in the current UTC hour (the same inputs give the same token).
 */
async function addOffer(db: Db, storeId: string, body: TInsuranceQuote, cohort: Cohort | undefined, o: OfferRequest) {
  body.widget = await offerWidgets(db, storeId, cohort, o.placement === 'checkout' ? 'CHECKOUT' : 'CART');
  const quote = body.quote;
  if (!quote?.eligible || quote.ruleSetId === null) return;
  const widget = body.widget.config;
  const viaCohort = cohort && (body.source === 'partner' || widget?.source === 'partner');
  body.offer = o.tokens.issue({
    storeId,
    policyType: quote.policyType,
    subtotal: quote.subtotal,
    currency: quote.currency,
    amount: quote.customerAmount,
    ruleSetId: quote.ruleSetId,
    ruleId: quote.ruleId,
    widgetConfigId: widget?.id ?? null,
    widgetConfigUpdatedAt: widget?.updatedAt ?? null,
    partnerApplicationId: viaCohort ? cohort.applicationId : null,
    partnerVariantKey: viaCohort ? cohort.variantKey : null,
    hour: currentHour(),
  });
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
  options: {
    subtotal?: number | undefined;
    cohort?: Cohort | undefined;
    fallback: boolean;
    /** The storefront element's read (D55): widget configs and the offer on the answer. */
    offer?: OfferRequest;
  },
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
  if (options.offer) await addOffer(db, store.id, body, cohort, options.offer);
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

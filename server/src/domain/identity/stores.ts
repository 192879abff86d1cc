import type { Db } from '../../db/database';
import type { PriceRuleRow } from '../../db/schema';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';

interface NewStore {
  name: string;
  domain: string;
  currency?: string;
}

export interface Store {
  id: string;
  name: string;
  domain: string;
  currency: string;
}

/** D45: the suffix of every test store's domain, which no live store may take. */
export const TEST_DOMAIN_SUFFIX = '.test';

/** What every store starts with (D30): merchant settings... */
const DEFAULT_MERCHANT_SETTINGS = {
  enableCancelAfterPurchase: false,
  cancelAfterPurchaseDurationSeconds: 0,
  sendConfirmationEmail: true,
  sendSmsUpdates: false,
  offerStoreCreditOnServicePurchase: false,
  storeCreditType: 'GIFT_CARD',
  storeCreditBonus: 0,
  storeCreditBonusType: 'flat',
  storeCreditMaxPercentage: 100,
} as const;

/** ...one rule set of each type, priced as a percentage of the cart until the merchant edits it... */
const DEFAULT_RULES: Record<'SHIPPING' | 'EXTENDED_WARRANTY', Omit<PriceRuleRow, 'id'>[]> = {
  SHIPPING: [{ min: 0, max: 1_000_000, terms: { operator: 'AND', customer: { amount: 2, type: 'percentage' } } }],
  EXTENDED_WARRANTY: [
    { min: 0, max: 1_000_000, terms: { operator: 'AND', customer: { amount: 10, type: 'percentage' } } },
  ],
};

/** ...and one widget config of each type. */
const DEFAULT_WIDGETS = [
  { type: 'CHECKOUT', name: 'Checkout protection' },
  { type: 'CART', name: 'Cart protection' },
  { type: 'INFO_MODAL', name: 'Protection details' },
] as const;

/** A storefront domain as `store_url` names it (D29): host only, lower case. */
function normalizeDomain(input: string): string {
  const withoutScheme = input
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  return withoutScheme.split(/[/?#]/)[0]!.replace(/\.$/, '');
}

/**
 * Creates a live store and its defaults (D7, D30) in one transaction. A live store never
 * takes a `.test` domain (400, D45): test stores are made by their app's owner
 * (domain/identity/test-stores.ts).
 */
export async function createStore(db: Db, input: NewStore): Promise<Store> {
  const store: Store = {
    id: newId('st'),
    name: input.name,
    domain: normalizeDomain(input.domain),
    currency: (input.currency ?? 'USD').toUpperCase(),
  };
  if (store.domain.endsWith(TEST_DOMAIN_SUFFIX)) {
    throw refuse.invalidAt('domain', `a live store cannot take a ${TEST_DOMAIN_SUFFIX} domain (it names test stores)`);
  }
  return withDomainConflict(store.domain, () => transact(db, (trx) => insertStore(trx, store)));
}

/** A second store with the same domain answers 409 (domains are unique across both modes). */
export async function withDomainConflict<T>(domain: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if ((err as { code?: string; constraint?: string }).constraint === 'stores_domain_key') {
      throw refuse.conflict(`a store with domain ${domain} exists already`);
    }
    throw err;
  }
}

/** The store's row and its defaults (D30), inside the caller's transaction (see createStore). */
export async function insertStore(trx: Db, store: Store, testClientId?: string): Promise<Store> {
  await trx
    .insertInto('stores')
    .values({ ...store, livemode: testClientId === undefined, testClientId: testClientId ?? null })
    .execute();
  await trx
    .insertInto('merchantSettings')
    .values({ storeId: store.id, ...DEFAULT_MERCHANT_SETTINGS, updatedByApplicationId: null })
    .execute();
  await trx
    .insertInto('pricingRuleSets')
    .values(
      (['SHIPPING', 'EXTENDED_WARRANTY'] as const).map((type) => ({
        id: newId('rs'),
        storeId: store.id,
        type,
        rules: JSON.stringify(DEFAULT_RULES[type].map((r) => ({ id: newId('ru'), ...r }))),
        updatedByApplicationId: null,
      })),
    )
    .execute();
  await trx
    .insertInto('widgetConfigs')
    .values(
      DEFAULT_WIDGETS.map((w) => ({
        id: newId('wc'),
        storeId: store.id,
        type: w.type,
        status: 'ACTIVE',
        variant: 'default',
        name: w.name,
        config: JSON.stringify({}),
        updatedByApplicationId: null,
      })),
    )
    .execute();
  return store;
}

export async function findStore(db: Db, by: { id?: string; domain?: string }): Promise<Store | undefined> {
  let q = db.selectFrom('stores').select(['id', 'name', 'domain', 'currency']);
  if (by.id !== undefined) q = q.where('id', '=', by.id);
  else if (by.domain !== undefined) q = q.where('domain', '=', normalizeDomain(by.domain));
  else return undefined;
  return q.executeTakeFirst();
}

/** D45: whether the store is live (true), a test store (false), or missing (undefined). */
export async function storeLivemode(db: Db, storeId: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('stores').select('livemode').where('id', '=', storeId).executeTakeFirst();
  return row?.livemode;
}

/**
 * Every store, oldest first, for the operator (`pnpm cli store list`): live stores only unless
 * `includeTest` (D45: test stores stay out of listings unless asked for).
 */
export async function listStores(
  db: Db,
  options: { includeTest?: boolean } = {},
): Promise<(Store & { livemode: boolean })[]> {
  let q = db.selectFrom('stores').select(['id', 'name', 'domain', 'currency', 'livemode']);
  if (!options.includeTest) q = q.where('livemode', '=', true);
  return q.orderBy('createdAt').orderBy('id').execute();
}

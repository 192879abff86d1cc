import type { TMerchantSettings } from '@protection-service/contract';
import type { StoreCache } from '../../cache/store-cache';
import type { Db } from '../../db/database';
import { refuse } from '../../lib/refusal';

/**
 * GET /v2/settings: the merchant settings of the calling app's store, kept in `cache` until the
 * store changes. Refused (404) when the store is unknown.
 */
export async function merchantSettingsOf(
  db: Db,
  cache: StoreCache<TMerchantSettings>,
  storeId: string,
): Promise<TMerchantSettings> {
  const settings = await cache.load(storeId, storeId, () => readMerchantSettings(db, storeId));
  if (!settings) throw refuse.missing('store not found');
  return settings;
}

/** The merchant default settings of a store (spec "Merchant settings"), if it is known. */
export async function readMerchantSettings(db: Db, storeId: string): Promise<TMerchantSettings | undefined> {
  const row = await db.selectFrom('merchantSettings').selectAll().where('storeId', '=', storeId).executeTakeFirst();
  if (!row) return undefined;
  const { storeId: _store, updatedAt, storeCreditType, ...fields } = row;
  return {
    ...fields,
    storeCreditType: storeCreditType as TMerchantSettings['storeCreditType'],
    updatedAt: updatedAt.toISOString(),
  };
}

import type { TMerchantSettings, TMerchantSettingsUpdate } from '@protection-service/contract';
import { announceStoreChange } from '../../cache/changes';
import type { StoreCache } from '../../cache/store-cache';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { refuseUnlessManager } from '../identity/installations';

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

/**
 * PATCH /v1/stores/:storeId/settings (D53): an owner or admin writes the store's defaults (the
 * contract holds the spec's limits). A merchant's write, so `updatedByApplicationId` becomes
 * null (spec); every process's cached reads of the store are dropped once it commits (D29).
 */
export async function updateMerchantSettings(
  db: Db,
  userId: string,
  storeId: string,
  change: TMerchantSettingsUpdate,
): Promise<TMerchantSettings> {
  await refuseUnlessManager(db, userId, storeId);
  return transact(db, async (trx) => {
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(change)) if (value !== undefined) set[key] = value;
    await trx
      .updateTable('merchantSettings')
      .set({ ...set, updatedByApplicationId: null, updatedAt: new Date() })
      .where('storeId', '=', storeId)
      .execute();
    await announceStoreChange(trx, storeId);
    const settings = await readMerchantSettings(trx, storeId);
    if (!settings) throw refuse.missing('store not found');
    return settings;
  });
}

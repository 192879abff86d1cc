import {
  DEFAULT_PHOTOS_REQUIRED_FOR,
  ISSUE_TYPES,
  type TIssueType,
  type TMerchantSettings,
  type TMerchantSettingsUpdate,
} from '@protection-service/contract';
import { announceStoreChange } from '../../cache/changes';
import type { StoreCache } from '../../cache/store-cache';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { recordAudit } from '../audit/record';
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
  const { storeId: _store, updatedAt, storeCreditType, photosRequiredFor, ...fields } = row;
  return {
    ...fields,
    storeCreditType: storeCreditType as TMerchantSettings['storeCreditType'],
    photosRequiredFor: inIssueOrder(photosRequiredFor),
    updatedAt: updatedAt.toISOString(),
  };
}

/** The issue types named, each once, in the order of the issue types (D22), whatever the order written. */
function inIssueOrder(types: readonly string[]): TIssueType[] {
  return ISSUE_TYPES.filter((type) => types.includes(type));
}

/**
 * D56: the issue types for which a store's claims need photos (the shopper's claim form asks
 * for them, and a claim filed without one for such a type is worth a look). The default
 * types when the store is unknown.
 */
export async function photosRequiredFor(db: Db, storeId: string): Promise<TIssueType[]> {
  const row = await db
    .selectFrom('merchantSettings')
    .select('photosRequiredFor')
    .where('storeId', '=', storeId)
    .executeTakeFirst();
  return inIssueOrder(row?.photosRequiredFor ?? DEFAULT_PHOTOS_REQUIRED_FOR);
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
    const before = await readMerchantSettings(trx, storeId);
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(change)) if (value !== undefined) set[key] = value;
    if (change.photosRequiredFor) set.photosRequiredFor = inIssueOrder(change.photosRequiredFor);
    await trx
      .updateTable('merchantSettings')
      .set({ ...set, updatedByApplicationId: null, updatedAt: new Date() })
      .where('storeId', '=', storeId)
      .execute();
    await announceStoreChange(trx, storeId);
    const settings = await readMerchantSettings(trx, storeId);
    if (!settings || !before) throw refuse.missing('store not found');
    await recordAudit(trx, {
      store: storeId,
      actor: { type: 'user', id: userId },
      action: 'settings.updated',
      target: { type: 'settings', id: storeId },
      changes: changedFields(before, settings),
    });
    return settings;
  });
}

/** D53: the fields a settings write changed, each with its value before and after. */
function changedFields(before: TMerchantSettings, after: TMerchantSettings) {
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (key === 'updatedAt') continue;
    const old = (before as Record<string, unknown>)[key];
    if (JSON.stringify(old) !== JSON.stringify(value)) {
      was[key] = old;
      now[key] = value;
    }
  }
  return { before: was, after: now };
}

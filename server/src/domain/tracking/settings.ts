import type { TTrackingSettings, TTrackingSettingsUpdate } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { recordAudit } from '../audit/record';
import { refuseUnlessManager } from '../identity/installations';
import { DEFAULT_TRACKING_SETTINGS } from './rules';

/** The store's tracking rules (D54): its row, else the defaults. */
export async function readTrackingSettings(db: Db, storeId: string): Promise<TTrackingSettings> {
  const row = await db
    .selectFrom('trackingSettings')
    .select([
      'mode',
      'lostNoMovementDays',
      'lostAfterEstimatedDays',
      'delayedEnabled',
      'delayedAfterEstimatedDays',
      'claimWindowDays',
      'resolutionRequested',
    ])
    .where('storeId', '=', storeId)
    .executeTakeFirst();
  return row ?? { ...DEFAULT_TRACKING_SETTINGS };
}

/** `GET /v1/stores/:storeId/tracking-settings`: an owner or admin (D49, D54). */
export async function readStoreTrackingSettings(db: Db, userId: string, storeId: string): Promise<TTrackingSettings> {
  await refuseUnlessManager(db, userId, storeId);
  return readTrackingSettings(db, storeId);
}

/**
 * `PUT /v1/stores/:storeId/tracking-settings` (D54): the fields sent replace the current ones,
 * with an audit line of what changed (D53).
 */
export async function updateTrackingSettings(
  db: Db,
  userId: string,
  storeId: string,
  change: TTrackingSettingsUpdate,
): Promise<TTrackingSettings> {
  await refuseUnlessManager(db, userId, storeId);
  return transact(db, async (trx) => {
    // The store row is locked so two writes apply one after the other.
    await trx.selectFrom('stores').select('id').where('id', '=', storeId).forUpdate().executeTakeFirst();
    const before = await readTrackingSettings(trx, storeId);
    const after: TTrackingSettings = { ...before };
    for (const [key, value] of Object.entries(change)) {
      if (value !== undefined) (after as Record<string, unknown>)[key] = value;
    }
    await trx
      .insertInto('trackingSettings')
      .values({ storeId, ...after, updatedAt: new Date() })
      .onConflict((oc) => oc.column('storeId').doUpdateSet({ ...after, updatedAt: new Date() }))
      .execute();
    const was: Record<string, unknown> = {};
    const now: Record<string, unknown> = {};
    for (const key of Object.keys(after) as (keyof TTrackingSettings)[]) {
      if (before[key] !== after[key]) {
        was[key] = before[key];
        now[key] = after[key];
      }
    }
    await recordAudit(trx, {
      store: storeId,
      actor: { type: 'user', id: userId },
      action: 'tracking_settings.updated',
      target: { type: 'tracking_settings', id: storeId },
      changes: { before: was, after: now },
    });
    return after;
  });
}

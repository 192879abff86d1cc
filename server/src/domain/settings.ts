import type { TMerchantSettings } from '@protection-service/contract';
import type { Db } from '../db/database';

/** The merchant default settings of a store (spec "Merchant settings"). */
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
 * The resolved settings of D37 for a call from an app (`clientId`): the merchant settings
 * with the non-null overrides of that app's active partner context layered on top. The one
 * place rules such as the D26 store credit read settings from. Partner contexts live with the
 * partner surface; they are layered on here, and until then the merchant settings are the
 * resolved settings (D37: "without a context, the merchant settings").
 */
export async function resolvedSettings(
  db: Db,
  storeId: string,
  _clientId: string,
): Promise<TMerchantSettings | undefined> {
  return readMerchantSettings(db, storeId);
}

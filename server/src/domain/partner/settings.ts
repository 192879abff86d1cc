import type { TMerchantSettings } from '@protection-service/contract';
import type { Db } from '../../db/database';

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

import type { Contract } from '@protection-service/contract';
import { readMerchantSettings } from '../domain/settings';
import { notFound } from '../http/errors';
import { storeOf } from './caller';
import type { GroupHandlers, RouteContext } from './index';

/** Merchant settings and partner contexts. */
export function settingsHandlers({ db }: RouteContext): GroupHandlers<Contract['settings']> {
  return {
    async get({ req }) {
      const settings = await readMerchantSettings(db, storeOf(req));
      if (!settings) throw notFound('store not found');
      return { status: 200, body: { data: settings } };
    },
  };
}

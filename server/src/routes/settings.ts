import type { Contract } from '@protection-service/contract';
import {
  createContext,
  deleteContext,
  listContexts,
  ownContext,
  resolvedView,
  updateContext,
} from '../domain/partner/contexts';
import { merchantSettingsOf } from '../domain/partner/settings';
import { appTokenOf, pricingTypesOf, storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * Merchant settings and the calling app's partner context (D27, D37). The domain answers a
 * context of another app or store, or a deleted one, exactly like a missing one (D7). The
 * resolved view's pricing is filtered to the pricing types the token may read (D16). A context
 * is an installed app's own: a staff token is refused there (403, D49).
 */
export function settingsHandlers({ db, settingsCache }: RouteContext): GroupHandlers<Contract['settings']> {
  return {
    async get({ req }) {
      return { status: 200, body: { data: await merchantSettingsOf(db, settingsCache, storeOf(req)) } };
    },
    async createContext({ body, req }) {
      const { storeId, clientId } = appTokenOf(req);
      return { status: 201, body: { data: await createContext(db, storeId, clientId, body.name) } };
    },
    async listContexts({ req }) {
      const { storeId, clientId } = appTokenOf(req);
      return { status: 200, body: { data: await listContexts(db, storeId, clientId) } };
    },
    async getContext({ params, query, req }) {
      const { storeId, clientId } = appTokenOf(req);
      const row = await ownContext(db, storeId, clientId, params.contextId);
      return {
        status: 200,
        body: { data: await resolvedView(db, row, query.variantKey, pricingTypesOf(req, 'read')) },
      };
    },
    async updateContext({ params, query, body, req }) {
      const { storeId, clientId } = appTokenOf(req);
      const row = await updateContext(db, storeId, clientId, params.contextId, body);
      return {
        status: 200,
        body: { data: await resolvedView(db, row, query.variantKey, pricingTypesOf(req, 'read')) },
      };
    },
    async deleteContext({ params, req }) {
      const { storeId, clientId } = appTokenOf(req);
      await deleteContext(db, storeId, clientId, params.contextId);
      return { status: 200, body: { data: { ok: true as const } } };
    },
  };
}

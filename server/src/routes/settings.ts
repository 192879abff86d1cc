import type { Contract } from '@protection-service/contract';
import {
  createContext,
  deleteContext,
  listContexts,
  ownContext,
  resolvedView,
  updateContext,
} from '../domain/partner/contexts';
import { readMerchantSettings } from '../domain/partner/settings';
import { pricingTypesOf, storeOf, tokenOf } from '../http/caller';
import { notFound } from '../http/errors';
import type { GroupHandlers, RouteContext } from './context';

const CONTEXT_NOT_FOUND = 'partner context not found';

/**
 * Merchant settings and the calling app's partner context (D27, D37). A context of another
 * app or store, or a deleted one, answers exactly like a missing one (D7). The resolved
 * view's pricing is filtered to the pricing types the token may read (D16).
 */
export function settingsHandlers({ db, settingsCache }: RouteContext): GroupHandlers<Contract['settings']> {
  return {
    async get({ req }) {
      const storeId = storeOf(req);
      const settings = await settingsCache.load(storeId, storeId, () => readMerchantSettings(db, storeId));
      if (!settings) throw notFound('store not found');
      return { status: 200, body: { data: settings } };
    },
    async createContext({ body, req }) {
      const { storeId, clientId } = tokenOf(req);
      return { status: 201, body: { data: await createContext(db, storeId, clientId, body.name) } };
    },
    async listContexts({ req }) {
      const { storeId, clientId } = tokenOf(req);
      return { status: 200, body: { data: await listContexts(db, storeId, clientId) } };
    },
    async getContext({ params, query, req }) {
      const { storeId, clientId } = tokenOf(req);
      const row = await ownContext(db, storeId, clientId, params.contextId);
      if (!row) throw notFound(CONTEXT_NOT_FOUND);
      return {
        status: 200,
        body: { data: await resolvedView(db, row, query.variantKey, pricingTypesOf(req, 'read')) },
      };
    },
    async updateContext({ params, query, body, req }) {
      const { storeId, clientId } = tokenOf(req);
      const row = await updateContext(db, storeId, clientId, params.contextId, body);
      if (!row) throw notFound(CONTEXT_NOT_FOUND);
      return {
        status: 200,
        body: { data: await resolvedView(db, row, query.variantKey, pricingTypesOf(req, 'read')) },
      };
    },
    async deleteContext({ params, req }) {
      const { storeId, clientId } = tokenOf(req);
      if (!(await deleteContext(db, storeId, clientId, params.contextId))) throw notFound(CONTEXT_NOT_FOUND);
      return { status: 200, body: { data: { ok: true as const } } };
    },
  };
}

import { acceptedPricingScopes, acceptedWidgetScopes, type Contract } from '@protection-service/contract';
import type { Request } from 'express';
import { type ContextRef, cohortPriceSets, cohortWidgets } from '../domain/partner/cohorts';
import { ownContext } from '../domain/partner/contexts';
import { insufficientScope } from '../http/auth';
import { notFound } from '../http/errors';
import { pricingTypesOf, tokenOf, widgetTypesOf } from './caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * Cohort price sets and widget configs (D28) under the calling app's own live context. The
 * gate has checked partner-context:update and that the token holds the family's scope for
 * some type; here the addressed type decides: a create naming a type the token cannot write
 * answers 403, a set of an unreadable (unwritable) type answers 404 like a missing one, and
 * lists are filtered (D16).
 */
export function cohortHandlers({ db }: RouteContext): GroupHandlers<Contract['cohorts']> {
  /** The caller's live context, or 404 (a foreign id answers like a missing one, D7). */
  async function contextOf(req: Request, contextId: string): Promise<ContextRef> {
    const { storeId, clientId } = tokenOf(req);
    const row = await ownContext(db, storeId, clientId, contextId);
    if (!row) throw notFound('partner context not found');
    return row;
  }
  const clientOf = (req: Request) => tokenOf(req).clientId;

  return {
    async createPriceSet({ params, body, req }) {
      if (!pricingTypesOf(req, 'update').includes(body.type)) {
        throw insufficientScope(acceptedPricingScopes(body.type, 'update'));
      }
      const context = await contextOf(req, params.contextId);
      const data = await cohortPriceSets.create(db, context, body, clientOf(req));
      return { status: 201, body: { data } };
    },
    async listPriceSets({ params, query, req }) {
      const context = await contextOf(req, params.contextId);
      return {
        status: 200,
        body: { data: await cohortPriceSets.list(db, context.id, pricingTypesOf(req, 'read'), query.variantKey) },
      };
    },
    async getPriceSet({ params, req }) {
      const context = await contextOf(req, params.contextId);
      const data = await cohortPriceSets.get(db, context.id, params.priceSetId, pricingTypesOf(req, 'read'));
      if (!data) throw notFound('price set not found');
      return { status: 200, body: { data } };
    },
    async updatePriceSet({ params, body, req }) {
      const context = await contextOf(req, params.contextId);
      const data = await cohortPriceSets.update(
        db,
        context,
        params.priceSetId,
        pricingTypesOf(req, 'update'),
        body,
        clientOf(req),
      );
      if (!data) throw notFound('price set not found');
      return { status: 200, body: { data } };
    },
    async deletePriceSet({ params, req }) {
      const context = await contextOf(req, params.contextId);
      if (!(await cohortPriceSets.remove(db, context, params.priceSetId, pricingTypesOf(req, 'update')))) {
        throw notFound('price set not found');
      }
      return { status: 200, body: { data: { ok: true as const } } };
    },

    async createWidget({ params, body, req }) {
      if (!widgetTypesOf(req, 'update').includes(body.type)) {
        throw insufficientScope(acceptedWidgetScopes(body.type, 'update'));
      }
      const context = await contextOf(req, params.contextId);
      const data = await cohortWidgets.create(db, context, body, clientOf(req));
      return { status: 201, body: { data } };
    },
    async listWidgets({ params, query, req }) {
      const context = await contextOf(req, params.contextId);
      return {
        status: 200,
        body: { data: await cohortWidgets.list(db, context.id, widgetTypesOf(req, 'read'), query.variantKey) },
      };
    },
    async getWidget({ params, req }) {
      const context = await contextOf(req, params.contextId);
      const data = await cohortWidgets.get(db, context.id, params.widgetConfigId, widgetTypesOf(req, 'read'));
      if (!data) throw notFound('widget config not found');
      return { status: 200, body: { data } };
    },
    async updateWidget({ params, body, req }) {
      const context = await contextOf(req, params.contextId);
      const data = await cohortWidgets.update(
        db,
        context,
        params.widgetConfigId,
        widgetTypesOf(req, 'update'),
        body,
        clientOf(req),
      );
      if (!data) throw notFound('widget config not found');
      return { status: 200, body: { data } };
    },
    async deleteWidget({ params, req }) {
      const context = await contextOf(req, params.contextId);
      if (!(await cohortWidgets.remove(db, context, params.widgetConfigId, widgetTypesOf(req, 'update')))) {
        throw notFound('widget config not found');
      }
      return { status: 200, body: { data: { ok: true as const } } };
    },
  };
}

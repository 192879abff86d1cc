import { acceptedPricingScopes, acceptedWidgetScopes, type Contract, type Scope } from '@protection-service/contract';
import type { Request } from 'express';
import { type CohortEntries, type ContextRef, cohortPriceSets, cohortWidgets } from '../domain/partner/cohorts';
import { ownContext } from '../domain/partner/contexts';
import { insufficientScope } from '../http/auth';
import { appTokenOf, pricingTypesOf, widgetTypesOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/**
 * Cohort price sets and widget configs (D28) under the calling app's own live context. The
 * gate has checked partner-context:update and that the token holds the family's scope for
 * some type; here the addressed type decides: a create naming a type the token cannot write
 * answers 403, a set of an unreadable (unwritable) type answers 404 like a missing one, and
 * lists are filtered (D16). A staff token has no context of its own: 403 (D49).
 */
export function cohortHandlers({ db }: RouteContext): GroupHandlers<Contract['cohorts']> {
  const priceSets = entryHandlers(db, cohortPriceSets, {
    typesOf: pricingTypesOf,
    accepted: (type) => acceptedPricingScopes(type as never, 'update'),
  });
  const widgets = entryHandlers(db, cohortWidgets, {
    typesOf: widgetTypesOf,
    accepted: (type) => acceptedWidgetScopes(type as never, 'update'),
  });
  return {
    createPriceSet: priceSets.create,
    listPriceSets: priceSets.list,
    getPriceSet: (a) => priceSets.get(a, a.params.priceSetId),
    updatePriceSet: (a) => priceSets.update(a, a.params.priceSetId),
    deletePriceSet: (a) => priceSets.remove(a, a.params.priceSetId),
    createWidget: widgets.create,
    listWidgets: widgets.list,
    getWidget: (a) => widgets.get(a, a.params.widgetConfigId),
    updateWidget: (a) => widgets.update(a, a.params.widgetConfigId),
    deleteWidget: (a) => widgets.remove(a, a.params.widgetConfigId),
  };
}

interface EntryAccess {
  typesOf(req: Request, action: 'read' | 'update'): readonly string[];
  accepted(type: string): Scope[];
}
type Call<Extra = object> = { params: { contextId: string }; req: Request } & Extra;

/** The five routes of one kind of cohort entry; here the kinds differ only in their scopes. */
function entryHandlers<
  Out,
  Create extends { type: string; variantKey: string },
  Update extends { type?: string | undefined; variantKey?: string | undefined },
>(db: RouteContext['db'], entries: CohortEntries<unknown, Out, Create, Update, never>, access: EntryAccess) {
  /** The caller's live context (the domain refuses a foreign id like a missing one, D7). */
  function contextOf(req: Request, contextId: string): Promise<ContextRef> {
    const { storeId, clientId } = appTokenOf(req);
    return ownContext(db, storeId, clientId, contextId);
  }
  const found = (data: Out) => ({ status: 200 as const, body: { data } });
  return {
    async create({ params, body, req }: Call<{ body: Create }>) {
      if (!access.typesOf(req, 'update').includes(body.type)) throw insufficientScope(access.accepted(body.type));
      const context = await contextOf(req, params.contextId);
      return {
        status: 201 as const,
        body: { data: await entries.create(db, context, body, appTokenOf(req).clientId) },
      };
    },
    async list({ params, query, req }: Call<{ query: { variantKey?: string | undefined } }>) {
      const context = await contextOf(req, params.contextId);
      const data = await entries.list(db, context.id, access.typesOf(req, 'read'), query.variantKey);
      return { status: 200 as const, body: { data } };
    },
    async get({ params, req }: Call, id: string) {
      const context = await contextOf(req, params.contextId);
      return found(await entries.get(db, context.id, id, access.typesOf(req, 'read')));
    },
    async update({ params, body, req }: Call<{ body: Update }>, id: string) {
      const context = await contextOf(req, params.contextId);
      const types = access.typesOf(req, 'update');
      return found(await entries.update(db, context, id, types, body, appTokenOf(req).clientId));
    },
    async remove({ params, req }: Call, id: string) {
      const context = await contextOf(req, params.contextId);
      await entries.remove(db, context, id, access.typesOf(req, 'update'));
      return { status: 200 as const, body: { data: { ok: true as const } } };
    },
  };
}

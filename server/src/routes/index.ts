import { type Contract, contract, isRouteMeta } from '@protection-service/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RequestHandler } from 'express';
import type { AppDeps } from '../app';
import type { StoreCache } from '../cache/store-cache';
import type { QuotePricing } from '../domain/partner/pricing-source';
import type { AuthServices } from '../http/auth';
import { HttpError } from '../http/errors';
import type { PublicReadCache } from '../http/public-cache';
import { appHandlers } from './apps';
import { authHandlers } from './auth';
import { claimHandlers } from './claims';
import { cohortHandlers } from './cohorts';
import { oauthHandlers } from './oauth';
import { orderHandlers } from './orders';
import { pricingHandlers } from './pricing';
import { productHandlers } from './products';
import { publicHandlers } from './public';
import { quoteHandlers } from './quote';
import { sessionHandlers } from './session';
import { settingsHandlers } from './settings';
import { storeHandlers } from './stores';
import { widgetHandlers } from './widgets';

/** Handlers of one contract group; a missing handler answers 501 until it is written. */
export type GroupHandlers<G extends AppRouter> = {
  [K in keyof G]?: G[K] extends AppRoute ? AppRouteImplementation<G[K]> : never;
};
type Handlers = { [G in keyof Contract]?: GroupHandlers<Contract[G]> };

/** What handlers get: the app's dependencies and the app-wide services createApp builds. */
export interface RouteContext extends AppDeps {
  publicCache: PublicReadCache;
  /** What quotes price from, per (store, app, variantKey, type), dropped when the store changes. */
  pricingCache: StoreCache<QuotePricing>;
  auth: AuthServices;
}

function handlers(deps: RouteContext): Handlers {
  return {
    oauth: { ...oauthHandlers(deps), ...sessionHandlers(deps) },
    auth: authHandlers(deps),
    apps: appHandlers(deps),
    stores: storeHandlers(deps),
    settings: settingsHandlers(deps),
    cohorts: cohortHandlers(deps),
    quote: quoteHandlers(deps),
    pricing: pricingHandlers(deps),
    widgets: widgetHandlers(deps),
    public: publicHandlers(deps),
    // Commerce (D18-D21).
    orders: orderHandlers(deps),
    products: productHandlers(deps),
    // Claims (D22-D26).
    claims: claimHandlers(deps),
  };
}

type Handler = (input: any) => Promise<{ status: number; body: unknown }>;

export interface MountedRoute {
  group: string;
  name: string;
  route: AppRoute;
  /** A ts-rest handler, or for a route not written yet a middleware answering 501 before validation. */
  implementation: Handler | { middleware: RequestHandler[]; handler: Handler };
  implemented: boolean;
}

/**
 * Every contract route with its handler. Routes without valid metadata are refused here,
 * at start-up, so none can be served without an auth rule (fail closed).
 */
export function mountedRoutes(deps: RouteContext): MountedRoute[] {
  const impl = handlers(deps) as Record<string, Record<string, Handler> | undefined>;
  const out: MountedRoute[] = [];
  for (const [group, routes] of Object.entries(contract as unknown as Record<string, Record<string, AppRoute>>)) {
    for (const [name, route] of Object.entries(routes)) {
      if (!isRouteMeta(route.metadata)) throw new Error(`route ${group}.${name} has no auth metadata`);
      const handler = impl[group]?.[name];
      out.push({
        group,
        name,
        route,
        implementation: handler ?? notImplemented(route),
        implemented: handler !== undefined,
      });
    }
  }
  return out;
}

function notImplemented(route: AppRoute): MountedRoute['implementation'] {
  const refuse: RequestHandler = (_req, _res, next) =>
    next(new HttpError(501, `${route.method} ${route.path} is not implemented yet`));
  return { middleware: [refuse], handler: async () => Promise.reject(new HttpError(501, 'not implemented')) };
}

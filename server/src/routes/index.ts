import { contract, isRouteMeta } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { analyticsHandlers } from './analytics';
import { appHandlers } from './apps';
import { authHandlers } from './auth';
import { claimHandlers } from './claims';
import { cohortHandlers } from './cohorts';
import type { Handlers, RouteContext } from './context';
import { fileHandlers } from './files';
import { memberHandlers } from './members';
import { oauthHandlers } from './oauth';
import { orderHandlers } from './orders';
import { pricingHandlers } from './pricing';
import { productHandlers } from './products';
import { publicHandlers } from './public';
import { quoteHandlers } from './quote';
import { sessionTokenHandlers } from './session-tokens';
import { settingsHandlers } from './settings';
import { storeHandlers } from './stores';
import { testHelperHandlers } from './test-helpers';
import { trackingHandlers } from './tracking';
import { widgetHandlers } from './widgets';

function handlers(deps: RouteContext): Handlers {
  return {
    oauth: { ...oauthHandlers(deps), ...sessionTokenHandlers(deps) },
    auth: authHandlers(deps),
    apps: appHandlers(deps),
    stores: storeHandlers(deps),
    members: memberHandlers(deps),
    settings: settingsHandlers(deps),
    cohorts: cohortHandlers(deps),
    quote: quoteHandlers(deps),
    pricing: pricingHandlers(deps),
    widgets: widgetHandlers(deps),
    public: publicHandlers(deps),
    // Commerce (D18-D21).
    orders: orderHandlers(deps),
    // Shipment tracking (D54).
    tracking: trackingHandlers(deps),
    products: productHandlers(deps),
    // Claims (D22-D26).
    claims: claimHandlers(deps),
    // Files (D56).
    files: fileHandlers(deps),
    // Insight (D52).
    analytics: analyticsHandlers(deps),
    // Test mode (D45).
    testHelpers: testHelperHandlers(deps),
  };
}

type Handler = (input: any) => Promise<{ status: number; body: unknown }>;

interface MountedRoute {
  group: string;
  name: string;
  route: AppRoute;
  implementation: Handler;
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
      // The types require every handler (Handlers); this guards a route added to the contract
      // object at run time only.
      if (!handler) throw new Error(`route ${group}.${name} has no handler`);
      out.push({ group, name, route, implementation: handler });
    }
  }
  return out;
}

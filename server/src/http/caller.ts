import {
  type Action,
  acceptedPricingScopes,
  acceptedWidgetScopes,
  PRICING_TYPES,
  type PricingType,
  WIDGET_TYPES,
  type WidgetType,
} from '@protection-service/contract';
import type { Request } from 'express';
import type { AccessTokenClaims, AppTokenClaims, DashboardTokenClaims } from '../domain/auth/tokens';
import { HttpError } from './errors';

type TokenView = Readonly<AccessTokenClaims & { has(scope: string): boolean }>;

/** Each token caller's view, made once: the auth gate gives a token the same caller on every request. */
const views = new WeakMap<object, TokenView>();

/**
 * The token claims of the caller, as the auth gate (./auth.ts) established them. Handlers of
 * token routes read the store only from here (D7): never from a path, query or body.
 */
export function tokenOf(req: Pick<Request, 'caller'>): TokenView {
  const caller = req.caller;
  if (caller?.kind !== 'token') throw new HttpError(401, 'missing bearer token');
  let view = views.get(caller);
  if (!view) {
    view = { ...caller.claims, has: (scope: string) => caller.scopes.has(scope as never) };
    views.set(caller, view);
  }
  return view;
}

/**
 * The resource types whose scope the token holds for an action (spec: lists are silently
 * filtered to these; a single resource of another type answers 404, existence hidden).
 */
export function pricingTypesOf(req: Request, action: Action): PricingType[] {
  const token = tokenOf(req);
  return PRICING_TYPES.filter((t) => acceptedPricingScopes(t, action).some((s) => token.has(s)));
}

export function widgetTypesOf(req: Request, action: Action): WidgetType[] {
  const token = tokenOf(req);
  return WIDGET_TYPES.filter((t) => acceptedWidgetScopes(t, action).some((s) => token.has(s)));
}

export function storeOf(req: Pick<Request, 'caller'>): string {
  return tokenOf(req).storeId;
}

/**
 * Who makes a change through a token (D49): an installed app (its client id) or a store member
 * with a staff token (the user's id, and no app).
 */
export function actorOf(req: Pick<Request, 'caller'>): {
  storeId: string;
  clientId: string | null;
  userId: string | null;
} {
  const token = tokenOf(req);
  return token.kind === 'staff'
    ? { storeId: token.storeId, clientId: null, userId: token.userId }
    : { storeId: token.storeId, clientId: token.clientId, userId: null };
}

/** D49: what a staff token hears on a route of an installed app's own (partner contexts, cohorts). */
export const APP_ONLY =
  "this route acts on the calling app's own partner context: call it with an installed app's access token, not a staff token (D49)";

/**
 * The token of an installed app, for routes that act on the app's own resources (its partner
 * context and cohorts, D27, D28): a staff token has no app there and is refused (403, D49).
 */
export function appTokenOf(req: Pick<Request, 'caller'>): Readonly<AppTokenClaims> {
  const token = tokenOf(req);
  if (token.kind !== 'app') throw new HttpError(403, APP_ONLY);
  return token;
}

export function dashboardUserOf(req: Pick<Request, 'caller'>): DashboardTokenClaims {
  const caller = req.caller;
  if (caller?.kind !== 'dashboard') throw new HttpError(401, 'missing bearer token');
  return caller.claims;
}

import { type AppRouter, initContract } from '@ts-rest/core';
import { noScope, type ScopeRule } from './scopes';

/**
 * Who may call a route (routes.tsv `auth` column).
 * - `public`: nobody in particular (rate-limited per IP).
 * - `client`: an OAuth client authenticating with its id and secret (token, revoke).
 * - `dashboard`: a dashboard user's JWT from `POST /v1/auth/login` (D8).
 * - `token`: an access token `svc_at_…` bound to one store (D7): an installed app's, or a store
 *   member's staff token with the scopes of their role (D49).
 * - `provider`: a carrier aggregator's webhook (D54): no token; the handler checks the
 *   signature of the tracking source the path names over the raw bytes (rate-limited per IP).
 */
export const AUTH_KINDS: readonly AuthKind[] = ['public', 'client', 'dashboard', 'token', 'provider'];
export type AuthKind = 'public' | 'client' | 'dashboard' | 'token' | 'provider';

/** Every route carries this as `metadata`; a route without it is unreachable (fail closed). */
export interface RouteMeta {
  auth: AuthKind;
  scopes: ScopeRule;
  /**
   * `data` when the success body is wrapped as `{data: …}` (D1), `plain` otherwise; `csv` when
   * it is not JSON at all but `text/csv` (D52's export), streamed; `bytes` when it is a stored
   * file's bytes with the type found in them (D56).
   */
  body: 'data' | 'plain' | 'csv' | 'bytes';
  /** Where the route comes from: `spec` or the decision that adds it (`D17`, …). */
  source: string;
  /** Further decisions that shape the route, cited in the OpenAPI description. */
  decisions?: readonly string[];
  /**
   * `test`: the route acts on test stores only (D45). The auth gate refuses a live token with
   * 403 before the handler runs, so no handler checks the mode itself.
   */
  mode?: 'test';
}

export function isRouteMeta(value: unknown): value is RouteMeta {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Partial<RouteMeta>;
  return (
    AUTH_KINDS.includes(m.auth as AuthKind) &&
    typeof m.scopes === 'object' &&
    (m.body === 'data' || m.body === 'plain' || m.body === 'csv' || m.body === 'bytes') &&
    typeof m.source === 'string'
  );
}

/** The metadata of a route of auth kind `A` whose success body is `B`. */
type MetaOf<A extends AuthKind, B extends RouteMeta['body']> = RouteMeta & { auth: A; body: B };

/**
 * The metadata of a group's routes of one auth kind and body kind, named once by the group;
 * each route then gives only its own: its scopes (token routes), its source and any further
 * decisions (the source need not be repeated among them).
 *
 *   const tokenRoute = routeMeta('token', 'plain');
 *   metadata: tokenRoute(anyOf('claim:read'), 'spec', ['D24']),
 */
export function routeMeta<B extends RouteMeta['body']>(
  auth: 'token',
  body: B,
): (scopes: ScopeRule, source: string, decisions?: readonly string[]) => MetaOf<'token', B>;
export function routeMeta<A extends Exclude<AuthKind, 'token'>, B extends RouteMeta['body']>(
  auth: A,
  body: B,
): (source: string, decisions?: readonly string[]) => MetaOf<A, B>;
export function routeMeta(auth: AuthKind, body: RouteMeta['body']) {
  const meta = (scopes: ScopeRule, source: string, decisions?: readonly string[]): RouteMeta => ({
    auth,
    scopes,
    body,
    source,
    ...(decisions ? { decisions } : {}),
  });
  return auth === 'token'
    ? (scopes: ScopeRule, source: string, decisions?: readonly string[]) => meta(scopes, source, decisions)
    : (source: string, decisions?: readonly string[]) => meta(noScope, source, decisions);
}

/** Typed as what `initContract` returns, so declarations can name it. */
const c: ReturnType<typeof initContract> = initContract();

/**
 * What every group's router gives each of its routes: strict status codes, so the handlers
 * and the clients know only the statuses a route declares.
 */
const GROUP_OPTIONS = { strictStatusCodes: true } as const;
type GroupOptions = typeof GROUP_OPTIONS;

/** One group of the contract: `c.router` with the options every group shares. */
export function routeGroup<T extends AppRouter>(
  routes: Parameters<typeof c.router<T, string, GroupOptions>>[0],
): ReturnType<typeof c.router<T, string, GroupOptions>> {
  return c.router<T, string, GroupOptions>(routes, GROUP_OPTIONS);
}

import { normalizeScope } from '@protection-service/contract';
import { authorizationTarget } from '../domain/auth/install';
import type { RouteContext } from '../routes/context';

/**
 * The authorization request of the D40 pages (RFC 6749 §4.1): its paths, and its parameters
 * read and checked from a query or a form before any page is shown.
 */

export const AUTHORIZE_PATH = '/v1/oauth/authorize';
export const SIGN_IN_PATH = '/v1/oauth/authorize/sign-in';
export const SIGN_OUT_PATH = '/v1/oauth/authorize/sign-out';
export const CONSENT_PATH = '/v1/oauth/authorize/consent';
export const STORE_PATH = '/v1/oauth/authorize/store';

/** RFC 7636 §4.2: the S256 challenge is BASE64URL(SHA-256), 43 characters; 43-128 allowed. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_PARAM = 2048;

/** The request's parameters, once the client and its redirect URI are known good. */
export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  appName: string;
  state?: string;
  /** Space-separated, as sent; the app's registered scopes when absent. */
  scope?: string;
  codeChallenge: string;
  store?: string;
  /** The parameters again, for hidden fields and links back. */
  params: Record<string, string | undefined>;
}

type Parsed =
  | { kind: 'ok'; request: AuthorizeRequest }
  /** Client or redirect URI not known good: an error page, never a redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'page'; message: string }
  /** Anything else: back to the client with `error` and `state`. */
  | { kind: 'redirect'; location: string };

export const single = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The redirect URI with `error`, `error_description` and `state` (RFC 6749 §4.1.2.1). */
export function errorRedirect(
  redirectUri: string,
  error: string,
  description: string,
  state: string | undefined,
): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state !== undefined) url.searchParams.set('state', state);
  return url.toString();
}

/**
 * Reads an authorization request from a query or a form (D40). `client_id` and `redirect_uri`
 * come first: until both are known good the browser stays here. A parameter sent twice is
 * `invalid_request` (RFC 6749 §3.1), PKCE is required and S256 only (D10).
 */
export async function parseRequest(ctx: RouteContext, source: Record<string, unknown>): Promise<Parsed> {
  const clientId = single(source.client_id);
  const redirectUri = single(source.redirect_uri);
  if (!clientId || !redirectUri || clientId.length > 255 || redirectUri.length > MAX_PARAM) {
    return { kind: 'page', message: 'The request does not name an app and its redirect URI.' };
  }
  const app = await authorizationTarget(ctx.db, clientId, redirectUri);
  if (!app) return { kind: 'page', message: 'The app is unknown, or the redirect URI is not one it registered.' };

  const state = single(source.state);
  const fail = (error: string, description: string): Parsed => ({
    kind: 'redirect',
    location: errorRedirect(
      redirectUri,
      error,
      description,
      state !== undefined && state.length <= MAX_PARAM ? state : undefined,
    ),
  });
  const repeated = Object.keys(source).find((k) => Array.isArray(source[k]));
  if (repeated !== undefined) return fail('invalid_request', `repeated parameter: ${repeated}`);
  if (state !== undefined && state.length > MAX_PARAM) return fail('invalid_request', 'state is too long');
  const responseType = single(source.response_type);
  if (responseType === undefined) return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  const codeChallenge = single(source.code_challenge);
  const method = single(source.code_challenge_method);
  if (!codeChallenge) return fail('invalid_request', 'code_challenge is required (PKCE, S256)');
  if (!CODE_CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'malformed code_challenge');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  const scope = single(source.scope);
  if (scope !== undefined) {
    const names = scope.split(' ').filter((s) => s !== '');
    if (names.length === 0) return fail('invalid_scope', 'no scope requested');
    const unknown = names.find((n) => !normalizeScope(n));
    if (unknown !== undefined) return fail('invalid_scope', `unknown scope: ${unknown.slice(0, 100)}`);
  }
  const store = single(source.store);
  if (store !== undefined && (store === '' || store.length > 255)) return fail('invalid_request', 'malformed store');
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    store,
  };
  return {
    kind: 'ok',
    request: { clientId, redirectUri, appName: app.name, state, scope, codeChallenge, store, params },
  };
}

export function scopesOf(request: AuthorizeRequest): string[] | undefined {
  return request.scope?.split(' ').filter((s) => s !== '');
}

/** The page URL of a request, for links and redirects back to it. */
export function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `${AUTHORIZE_PATH}?${query}`;
}

/** The origin of a redirect URI, as a CSP source: the consent form is redirected there. */
export function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

import { isRouteMeta, type RouteMeta, type Scope } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import type { NextFunction, Request, Response } from 'express';
import { TtlCache } from '../cache/ttl-cache';
import type { Db } from '../db/database';
import type { RevocationFeed } from '../domain/auth/revocations';
import { checkScopes } from '../domain/auth/scope-check';
import {
  type AccessTokenClaims,
  type DashboardTokenClaims,
  type TokenKeys,
  verifyAccessToken,
  verifyDashboardToken,
} from '../domain/auth/tokens';
import { storeLivemode } from '../domain/identity/stores';
import { currentRequest } from '../lib/request-context';
import type { ServiceMetrics } from '../metrics';
import { clientIp, type TrustProxy } from './client-ip';
import { HttpError, unavailable } from './errors';
import { type RateLimiter, type RateLimits, rateLimitHeaders } from './rate-limit';

/** Who is calling, as the auth middleware established it. */
type Caller =
  | { kind: 'public' | 'client' | 'provider'; ip: string }
  | { kind: 'dashboard'; claims: DashboardTokenClaims }
  | { kind: 'token'; claims: AccessTokenClaims; scopes: ReadonlySet<Scope> };

declare global {
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

export interface AuthServices {
  keys: TokenKeys;
  /** Access tokens whose signature and claims checked out, by token (`verifiedTokens`). */
  verified: TtlCache<VerifiedToken>;
  revocations: RevocationFeed;
  limiter: RateLimiter;
  limits: RateLimits;
  trustProxy: TrustProxy;
  metrics: ServiceMetrics;
  /** Each store's mode, for the mode check behind the store binding (D45). */
  storeModes: StoreModes;
}

/**
 * The mode of each store a token names (D45), kept per process once read: a store's
 * `livemode` is fixed for life, so it is never stale. A test token's store is read (once) and
 * must be a test store. A live token costs no query, so the live path stays as it was: it
 * must not name a store this process knows as a test store, and no grant ever mints a live
 * token for a test store (domain/auth/oauth.ts checks the store's mode at every grant).
 * A deleted store is not kept; its tokens are revoked with its installations. Bounded: past
 * the bound it starts over.
 */
export class StoreModes {
  private readonly known = new Map<string, boolean>();
  constructor(
    private readonly db: Db,
    private readonly bound = 100_000,
  ) {}

  /** Whether a token of mode `livemode` may act on `storeId`. */
  async matches(storeId: string, livemode: boolean): Promise<boolean> {
    const known = this.known.get(storeId);
    if (known !== undefined) return known === livemode;
    if (livemode) return true;
    const storeMode = await storeLivemode(this.db, storeId);
    if (storeMode !== undefined) {
      if (this.known.size >= this.bound) this.known.clear();
      this.known.set(storeId, storeMode);
    }
    return storeMode === false;
  }
}

const REALM = 'realm="protection-service"';

type TokenCaller = Extract<Caller, { kind: 'token' }>;

interface VerifiedToken {
  claims: AccessTokenClaims;
  scopes: ReadonlySet<Scope>;
  /** The caller its requests are made by, built once with the token's verification. */
  caller: TokenCaller;
}

/**
 * A token's signature and claims are fixed by its bytes, so once verified they are kept
 * (bounded, and never past the token's expiry) and the HMAC is not recomputed on each
 * request. Revocation is not: it is checked on every request, from the feed.
 */
export function verifiedTokens(): TtlCache<VerifiedToken> {
  return new TtlCache<VerifiedToken>((key) => key.length + 512, 10_000, 16 * 1024 * 1024);
}

function verifyAccess(services: AuthServices, token: string): VerifiedToken | null {
  const now = Date.now();
  // Kept no longer than the token lives: past its expiry it is verified (and refused) anew.
  const known = services.verified.get(token, now);
  if (known) return known;
  const claims = verifyAccessToken(services.keys, token);
  if (!claims) return null;
  const scopes = new Set(claims.scopes);
  const verified = { claims, scopes, caller: { kind: 'token' as const, claims, scopes } };
  services.verified.set(token, verified, claims.expiresAt * 1000 - now, now);
  return verified;
}

/**
 * The client id of a request's access token when this process can verify it (kept tokens first,
 * no database query), else undefined: what picks an app's pinned version (D44) before the
 * route runs. Revocation and scopes are the gate's, later.
 */
export function tokenClientOf(services: AuthServices): (req: Request) => string | undefined {
  return (req) => {
    const header = req.headers.authorization;
    if (header === undefined) return undefined;
    const match = /^Bearer +(svc_at_[\x21-\x7e]+) *$/i.exec(header);
    const claims = match ? verifyAccess(services, match[1]!)?.claims : undefined;
    // A staff token (D49) has no app, hence no pin.
    return claims?.kind === 'app' ? claims.clientId : undefined;
  };
}

/** RFC 6750 §3: what a 401 or 403 says in WWW-Authenticate. */
function unauthorized(message: string, error?: 'invalid_token'): HttpError {
  const challenge = error ? `Bearer ${REALM}, error="${error}", error_description="${message}"` : `Bearer ${REALM}`;
  return new HttpError(401, message, { headers: { 'www-authenticate': challenge } });
}

/** RFC 6750 §3.1 403 naming what would have satisfied the rule (D16). */
export function insufficientScope(required: readonly Scope[]): HttpError {
  return new HttpError(403, `insufficient scope: requires ${required.join(' or ')}`, {
    headers: { 'www-authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${required.join(' ')}"` },
  });
}

function bearer(req: Request): string | null {
  const header = req.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  // A header that is there but is not a usable Bearer credential is an invalid token.
  if (!match) throw unauthorized('malformed Authorization header', 'invalid_token');
  return match[1]!;
}

/** D45: what a live token hears on a route of test stores only (D2 shape, 403). */
export const TEST_STORES_ONLY =
  'this route is for test stores only: call it with an access token of a test store (svc_at_test_…)';

/** Per-IP limit of a route that has no token of its own to count by (D4). */
function ipLimit(route: AppRoute): { name: keyof RateLimits; exact: boolean } {
  switch (route.path) {
    case '/v1/oauth/session/verify':
      return { name: 'sessionVerify', exact: true };
    case '/v1/oauth/token':
    case '/v1/oauth/revoke':
    case '/v1/auth/login':
    case '/v1/auth/refresh':
      return { name: 'auth', exact: true };
    default:
      return { name: 'public', exact: false };
  }
}

/** One rate limit (D4): its headers on the answer, 429 past it. */
async function enforceLimit(
  services: AuthServices,
  res: Response,
  name: keyof RateLimits,
  exact: boolean,
  key: string,
): Promise<void> {
  const limit = services.limits[name];
  const decision = exact
    ? await services.limiter.exact(key, limit)
    : (services.limiter.local(key, limit) ?? (await services.limiter.shared(key, limit)));
  const pairs = rateLimitHeaders(decision);
  for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
  if (!decision.allowed) {
    services.metrics.rateLimited(name);
    throw new HttpError(429, 'rate limit exceeded, retry later');
  }
}

/**
 * The one gate every contract route passes (architecture: auth reads route metadata). It
 * fails closed: a route without metadata is refused. Order: identify the caller (401),
 * rate-limit (429), then the route's scope rule (403), then its mode (403, D45). Per-type checks that depend on the
 * addressed resource happen in the handler, which sees `req.caller`.
 */
export function authenticate(services: AuthServices) {
  return async (req: Request & { tsRestRoute?: AppRoute }, res: Response, next: NextFunction): Promise<void> => {
    try {
      const route = req.tsRestRoute;
      const meta = route?.metadata;
      if (!route || !isRouteMeta(meta)) throw new HttpError(404, 'no such route');
      const caller = await identify(services, req, meta);
      req.caller = caller;
      namedInLogs(caller);
      const byToken = caller.kind === 'token' || caller.kind === 'dashboard';
      const { name, exact } = byToken ? { name: 'token' as const, exact: false } : ipLimit(route);
      await enforceLimit(
        services,
        res,
        name,
        exact,
        byToken ? `token:${caller.claims.jti}` : `ip:${route.path}:${caller.ip}`,
      );
      // D4, D49: checking the current password is a guess at a credential: the sign-in limit
      // applies per user as well, however many tokens the guesser holds.
      if (caller.kind === 'dashboard' && route.path === '/v1/auth/password') {
        await enforceLimit(services, res, 'auth', true, `user:${route.path}:${caller.claims.userId}`);
      }
      if (req.caller.kind === 'token') {
        const verdict = checkScopes(meta.scopes, req.caller.scopes, req.body);
        if (!verdict.ok) throw insufficientScope(verdict.required);
        // D45: one gate for every route of test stores only, driven by the route's metadata.
        if (meta.mode === 'test' && req.caller.claims.livemode) throw new HttpError(403, TEST_STORES_ONLY);
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** The caller's app, store and member on every log line the request writes from here on (ids only). */
function namedInLogs(caller: Caller): void {
  const context = currentRequest();
  if (!context) return;
  if (caller.kind === 'dashboard') context.userId = caller.claims.userId;
  else if (caller.kind === 'token') {
    const claims = caller.claims;
    context.storeId = claims.storeId;
    if (claims.kind === 'app') context.clientId = claims.clientId;
    else context.userId = claims.userId;
  }
}

/**
 * What revokes an access token (D13): itself, its family and its installation; a staff token
 * (D49) also ends with its dashboard session (its grant) and its membership's staff grant.
 */
function revocationSubjects(claims: AccessTokenClaims) {
  return claims.kind === 'staff'
    ? { token: claims.jti, grant: claims.grantId, membership: claims.memberGrantId }
    : { token: claims.jti, grant: claims.grantId, installation: claims.installationId };
}

async function identify(services: AuthServices, req: Request, meta: RouteMeta): Promise<Caller> {
  // Only callers without a token are counted by address (D4): the others' is not worked out.
  // A provider's delivery (D54) carries no token: its handler checks the source's signature.
  if (meta.auth === 'public' || meta.auth === 'client' || meta.auth === 'provider')
    return { kind: meta.auth, ip: clientIp(req, services.trustProxy) };
  const token = bearer(req);
  if (token === null) throw unauthorized('missing bearer token');
  await services.revocations.ready;
  // The revocation feed could not be read lately (the database out of reach, D46).
  if (!services.revocations.isFresh()) throw unavailable('token revocation state unavailable');
  if (meta.auth === 'dashboard') {
    const claims = verifyDashboardToken(services.keys, token);
    if (!claims || services.revocations.isRevoked({ token: claims.jti, grant: claims.grantId })) {
      throw unauthorized('invalid, expired or revoked dashboard token', 'invalid_token');
    }
    return { kind: 'dashboard', claims };
  }
  const verified = verifyAccess(services, token);
  if (!verified || services.revocations.isRevoked(revocationSubjects(verified.claims))) {
    throw unauthorized('invalid, expired or revoked access token', 'invalid_token');
  }
  // D45: behind the store binding, the token's mode must be its store's (a deleted store has none).
  if (!(await services.storeModes.matches(verified.claims.storeId, verified.claims.livemode))) {
    throw unauthorized('invalid, expired or revoked access token', 'invalid_token');
  }
  return verified.caller;
}

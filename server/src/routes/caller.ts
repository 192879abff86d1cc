import type { Request } from 'express';
import type { AccessTokenClaims, DashboardTokenClaims } from '../domain/auth/tokens';
import { HttpError } from '../http/errors';

/**
 * The token claims of the caller, as the auth gate established them. Handlers of token routes
 * read the store only from here (D7): never from a path, query or body.
 */
export function tokenOf(req: Request): AccessTokenClaims & { has(scope: string): boolean } {
  const caller = req.caller;
  if (caller?.kind !== 'token') throw new HttpError(401, 'missing bearer token');
  return { ...caller.claims, has: (scope: string) => caller.scopes.has(scope as never) };
}

export function storeOf(req: Request): string {
  return tokenOf(req).storeId;
}

export function dashboardUserOf(req: Request): DashboardTokenClaims {
  const caller = req.caller;
  if (caller?.kind !== 'dashboard') throw new HttpError(401, 'missing bearer token');
  return caller.claims;
}

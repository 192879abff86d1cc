import type { Request, Response } from 'express';
import { checkCredentials } from '../domain/auth/dashboard';
import { clientIp } from '../http/client-ip';
import { withOriginOf } from '../http/origin';
import { rateLimitHeaders } from '../http/rate-limit';
import type { RouteContext } from '../routes/context';
import type { BrowserSessions } from './browser-session';

/** What a password sign-in on a page came to. */
export type SignInOutcome = 'signed-in' | 'wrong' | 'limited';

/**
 * A password sign-in from a page (D40): the same per-address count as `POST /v1/auth/login`
 * (D4, D8), so no page is a way around it; on success a new session (no fixation). The
 * install flow's sign-in and the dashboard's both come here.
 */
export async function passwordSignIn(
  ctx: RouteContext,
  sessions: BrowserSessions,
  req: Request,
  res: Response,
  credentials: { email: string; password: string },
): Promise<SignInOutcome> {
  if (!(await passwordAttemptAllowed(ctx, req, res))) return 'limited';
  const user = await checkCredentials(ctx.db, credentials.email.slice(0, 320), credentials.password.slice(0, 1024));
  if (!user) return 'wrong';
  await startSession(ctx, sessions, req, res, user);
  return 'signed-in';
}

/** A new session for `user` signed in from this page; its audit line (D53) carries the browser's address and user agent. */
export function startSession(
  ctx: RouteContext,
  sessions: BrowserSessions,
  req: Request,
  res: Response,
  user: { id: string; email: string },
): Promise<unknown> {
  return withOriginOf(req, ctx.auth.trustProxy, ctx.config.secretKey, () => sessions.signIn(res, user.id, user.email));
}

/**
 * Counts one password attempt from a page on the per-address count of `POST /v1/auth/login`
 * (D4, D8) and sets its rate-limit headers: false once the address is over its limit. The
 * sign-in pages and the invitation page (D53) all count here.
 */
export async function passwordAttemptAllowed(ctx: RouteContext, req: Request, res: Response): Promise<boolean> {
  const { auth } = ctx;
  const decision = await auth.limiter.exact(`ip:/v1/auth/login:${clientIp(req, auth.trustProxy)}`, auth.limits.auth);
  const pairs = rateLimitHeaders(decision);
  for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
  if (!decision.allowed) auth.metrics.rateLimited('auth');
  return decision.allowed;
}

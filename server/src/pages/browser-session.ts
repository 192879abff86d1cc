import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Db } from '../db/database';
import {
  BROWSER_SESSION_TTL_S,
  browserSessionUser,
  endBrowserSession,
  startBrowserSession,
} from '../domain/auth/browser-sessions';
import { signJwt, verifyJwt } from '../domain/auth/jwt';
import { deriveKey, equalBytes, hmacSha256 } from '../lib/crypto';

/**
 * The browser's session on the pages (D40, D41): one cookie, `HttpOnly`, `SameSite=Lax`,
 * `Secure` behind HTTPS, holding a signed `{sid, exp}` and, once signed in, `user: true`.
 * Every visitor has one (anonymous until sign-in) so that every form, the sign-in form
 * included, carries a CSRF token bound to the session: an HMAC of the session id.
 * A signed-in session id is a `dashboard` grant (domain/auth/browser-sessions.ts), checked in
 * the database on every page, so signing out ends it at once on every process.
 */

const SESSION_COOKIE = 'ps_session';

export interface BrowserSession {
  id: string;
  /** The dashboard user (D8), once signed in. */
  user?: { id: string; email: string };
  /** The CSRF token forms of this session carry. */
  csrf: string;
}

export class BrowserSessions {
  private readonly signing: Buffer;
  private readonly csrfKey: Buffer;
  private readonly secure: boolean;

  constructor(
    private readonly db: Db,
    secretKey: Buffer,
    publicBaseUrl: string,
  ) {
    this.signing = deriveKey(secretKey, 'page-session');
    this.csrfKey = deriveKey(secretKey, 'page-csrf');
    this.secure = publicBaseUrl.startsWith('https:');
  }

  private csrfOf(sessionId: string): string {
    return hmacSha256(this.csrfKey, `csrf:${sessionId}`).toString('base64url');
  }

  /** The request's session, if its cookie is genuine, unexpired and (signed in) not ended. */
  async read(req: Request): Promise<BrowserSession | undefined> {
    const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (!value) return undefined;
    const claims = verifyJwt(this.signing, value);
    if (!claims || typeof claims.sid !== 'string' || typeof claims.exp !== 'number') return undefined;
    if (claims.exp <= Date.now() / 1000) return undefined;
    const session: BrowserSession = { id: claims.sid, csrf: this.csrfOf(claims.sid) };
    if (claims.user === true) {
      const user = await browserSessionUser(this.db, claims.sid);
      if (!user) return undefined;
      session.user = user;
    }
    return session;
  }

  /** The request's session, or a new anonymous one whose cookie goes out with the answer. */
  async ensure(req: Request, res: Response): Promise<BrowserSession> {
    return (await this.read(req)) ?? this.issue(res, randomBytes(16).toString('base64url'), false);
  }

  /** Sign-in (D40): always a new session id, never the anonymous one (no fixation). */
  async signIn(res: Response, userId: string, email: string): Promise<BrowserSession> {
    const id = await startBrowserSession(this.db, userId);
    return { ...this.issue(res, id, true), user: { id: userId, email } };
  }

  /** Sign-out (D40): ends the session for good and starts an anonymous one. */
  async signOut(res: Response, session: BrowserSession): Promise<void> {
    if (session.user) await endBrowserSession(this.db, session.id);
    this.issue(res, randomBytes(16).toString('base64url'), false);
  }

  /** Constant-time check of a form's CSRF token against the session's. */
  csrfMatches(session: BrowserSession | undefined, presented: unknown): boolean {
    if (!session || typeof presented !== 'string') return false;
    return equalBytes(Buffer.from(presented), Buffer.from(session.csrf));
  }

  private issue(res: Response, id: string, user: boolean): BrowserSession {
    const exp = Math.floor(Date.now() / 1000) + BROWSER_SESSION_TTL_S;
    const value = signJwt(this.signing, { sid: id, exp, ...(user ? { user: true } : {}) });
    res.cookie(SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure,
      path: '/',
      maxAge: BROWSER_SESSION_TTL_S * 1000,
    });
    return { id, csrf: this.csrfOf(id) };
  }
}

/** One cookie's value from a Cookie header (RFC 6265 §5.4), without a parser dependency. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

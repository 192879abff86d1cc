import type { TMemberStore } from '@protection-service/contract';
import type { Request, Response } from 'express';
import type { BrowserSession, BrowserSessions } from '../browser-session';
import type { SignInOutcome } from '../sign-in';

/** A store of the signed-in user as the dashboard lists it (D50): its mode and the user's role (D49). */
export type MemberStore = TMemberStore;

/**
 * What the dashboard needs of the browser session, and nothing more (D50): the pages act on a
 * store only through the public API with a staff token (D49), and this is how they get one.
 * Built by pages/index.tsx; the dashboard's own files import no domain code (`pnpm deps`).
 */
export interface DashboardPort {
  sessions: BrowserSessions;
  /** A dashboard access token (D8) for the session: what `POST …/staff-tokens` takes. */
  dashboardToken(session: BrowserSession & { user: NonNullable<BrowserSession['user']> }): string;
  /** The stores the user belongs to (D8), with their role in each. */
  storesOf(userId: string): Promise<MemberStore[]>;
  /** A password sign-in, rate-limited as `POST /v1/auth/login` (D4, D40). */
  signIn(req: Request, res: Response, credentials: { email: string; password: string }): Promise<SignInOutcome>;
  /**
   * Headers that name the person's browser request (address, user agent) to the API it calls
   * over loopback, signed so the API can trust them and no API caller can forge them (D53).
   */
  vouchFor(req: Request): Record<string, string>;
  /** This service's public origin (`PUBLIC_BASE_URL`), for the same-origin check of forms. */
  publicOrigin: string;
}

import { isIPv6 } from 'node:net';
import type { Scope } from '@protection-service/contract';
import { type Client, createClient, type Fetch, type FetchMiddleware } from '@protection-service/sdk';
import type { Request } from 'express';
import { currentTraceparent } from '../../lib/tracing';
import type { BrowserSession } from '../browser-session';
import type { DashboardPort, MemberStore } from './port';

/** A signed-in browser session. */
export type SignedIn = BrowserSession & { user: NonNullable<BrowserSession['user']> };

/** The public API on one store, as the signed-in person's role allows it (D49, D50). */
export interface StoreApi {
  client: Client;
  store: MemberStore;
  /** Whether the role's scopes include one of these: what a page offers (the API refuses anyway). */
  can(...scopes: Scope[]): boolean;
}

interface HeldToken {
  token: string;
  scopes: ReadonlySet<Scope>;
  expiresAt: number;
}

/** A staff token is reused while it has this long left (it lives 5 minutes, D49). */
const REUSE_MARGIN_MS = 60_000;
/** Tokens held at most; the oldest go first (a token is cheap to mint again). */
const MAX_HELD = 10_000;
const API_TIMEOUT_MS = 10_000;
const USER_AGENT = 'protection-service-dashboard';

/**
 * How a page reaches the API (D50): over HTTP to this very server, through the SDK, with a
 * staff token (D49) minted from the browser session's dashboard token. So a page can do
 * exactly what a partner app with the role's scopes can, through the same checks,
 * idempotency, events and e-mails. Tokens are held per session and store until a minute
 * before they end; one that a role change, removal or sign-out ended (401) is minted again
 * once, and when that is refused the page answers as for a store that is not the user's.
 */
export class StaffApi {
  private readonly held = new Map<string, HeldToken>();

  constructor(private readonly port: DashboardPort) {}

  /** The API on `store` for this session, or undefined when the user may not act on it. */
  async open(
    req: Request,
    session: SignedIn,
    store: MemberStore,
    extra: FetchMiddleware[] = [],
  ): Promise<StoreApi | undefined> {
    const baseUrl = ownAddress(req);
    const key = `${session.id}:${store.id}`;
    let held: HeldToken | undefined = this.held.get(key);
    if (!held || held.expiresAt - Date.now() < REUSE_MARGIN_MS) {
      held = await this.mint(req, session, store.id);
      if (!held) return undefined;
    }
    const renew: FetchMiddleware = (next: Fetch) => async (url, init) => {
      const res = await next(url, init);
      if (res.status !== 401) return res;
      const fresh = await this.mint(req, session, store.id);
      if (!fresh) return res;
      return next(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${fresh.token}` },
      });
    };
    const client = createClient({
      baseUrl,
      accessToken: held.token,
      retry: false,
      timeoutMs: API_TIMEOUT_MS,
      middleware: [renew, ...extra],
      headers: this.pageHeaders(req),
    });
    const scopes = held.scopes;
    return { client, store, can: (...wanted) => wanted.some((s) => scopes.has(s)) };
  }

  /**
   * The API as the person with the session's dashboard token (D8): for the routes that take
   * it rather than a staff token (installations D14, settings D53), which check the role
   * themselves.
   */
  asUser(req: Request, session: SignedIn): Client {
    return this.userClient(req, session);
  }

  /** Forgets the session's tokens (sign-out): the API refuses them already. */
  forget(sessionId: string): void {
    for (const key of this.held.keys()) if (key.startsWith(`${sessionId}:`)) this.held.delete(key);
  }

  /** The SDK with the session's dashboard token. */
  private userClient(req: Request, session: SignedIn): Client {
    return createClient({
      baseUrl: ownAddress(req),
      accessToken: this.port.dashboardToken(session),
      retry: false,
      timeoutMs: API_TIMEOUT_MS,
      headers: this.pageHeaders(req),
    });
  }

  /**
   * The page's request id on its API calls (one id ties a page to what it did in the access
   * log), its trace when tracing is on, and the person's address and browser, vouched for, for the audit log (D53).
   */
  private pageHeaders(req: Request): Record<string, string> {
    // With tracing on, the API's requests are spans of the page's trace.
    const traceparent = currentTraceparent();
    return {
      'user-agent': USER_AGENT,
      ...(req.id ? { 'x-request-id': String(req.id), ...this.port.vouchFor(req) } : {}),
      ...(traceparent ? { traceparent } : {}),
    };
  }

  private async mint(req: Request, session: SignedIn, storeId: string): Promise<HeldToken | undefined> {
    const key = `${session.id}:${storeId}`;
    this.held.delete(key);
    const res = await this.userClient(req, session).stores.mintStaffToken({ params: { storeId } });
    // 401: the session ended since it was read; 404: no longer a member (D7, D49).
    if (res.status === 401 || res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`staff token refused: ${res.status}`);
    const { access_token, expires_in, scope } = res.body.data;
    const held = {
      token: access_token,
      scopes: new Set(scope.split(' ') as Scope[]),
      expiresAt: Date.now() + expires_in * 1000,
    };
    if (this.held.size >= MAX_HELD) this.held.delete(this.held.keys().next().value as string);
    this.held.set(key, held);
    return held;
  }
}

/** This server as the request reached it: the page's API calls go to the same listener. */
function ownAddress(req: Request): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.startsWith('::ffff:') ? address.slice(7) : address;
  return `http://${isIPv6(host) ? `[${host}]` : host}:${req.socket.localPort}`;
}

import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { deriveKey, equalBytes, hmacSha256 } from '../lib/crypto';
import { type RequestOrigin, withRequestOrigin } from '../lib/request-origin';
import { clientIp, type TrustProxy } from './client-ip';

/**
 * The dashboard calls the API on this same server over loopback (D50), so the connection's
 * address and browser are its own. It names the person's instead in this header, signed with
 * a key of this server's (HMAC over the address, browser, request id and time). The API
 * believes the header only when the signature holds, the request id is the request's own and
 * it is under a minute old: an API caller cannot forge one, and one seen cannot be reused on
 * another request.
 */
export const DASHBOARD_ORIGIN_HEADER = 'x-dashboard-origin';
const MAX_AGE_MS = 60_000;
const MAX_USER_AGENT = 512;

/** The key the dashboard signs with and the API checks with (derived from SECRET_KEY). */
export function dashboardOriginKey(secretKey: Buffer): Buffer {
  return deriveKey(secretKey, 'dashboard-origin');
}

function signed(key: Buffer, at: number, ip: string, userAgent: string, requestId: string): string {
  return hmacSha256(key, JSON.stringify([at, ip, userAgent, requestId])).toString('base64url');
}

/** The header's value naming the browser request `req` behind the API call with `requestId`. */
export function signDashboardOrigin(key: Buffer, req: Request, trust: TrustProxy, requestId: string): string {
  const at = Date.now();
  const ip = clientIp(req, trust);
  const userAgent = userAgentOf(req);
  const payload = Buffer.from(JSON.stringify([at, ip, userAgent])).toString('base64url');
  return `${payload}.${signed(key, at, ip, userAgent, requestId)}`;
}

function userAgentOf(req: IncomingMessage): string {
  return (req.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT);
}

/** The origin a valid dashboard header names, else undefined (absent, forged, stale or replayed). */
function vouchedOrigin(key: Buffer, req: Request): RequestOrigin | undefined {
  const sent = req.headers[DASHBOARD_ORIGIN_HEADER];
  if (typeof sent !== 'string' || sent.length > 2048) return undefined;
  const [payload, mac] = sent.split('.');
  if (!payload || !mac) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 3) return undefined;
  const [at, ip, userAgent] = fields as unknown[];
  if (typeof at !== 'number' || typeof ip !== 'string' || typeof userAgent !== 'string') return undefined;
  if (Math.abs(Date.now() - at) > MAX_AGE_MS) return undefined;
  const expected = Buffer.from(signed(key, at, ip, userAgent, req.id));
  if (!equalBytes(Buffer.from(mac), expected)) return undefined;
  return { requestId: req.id, ip, userAgent: userAgent || null };
}

/** Where the request came from: the dashboard's word for it when vouched, else the connection's. */
export function originOf(req: Request, trust: TrustProxy, key: Buffer): RequestOrigin {
  return (
    vouchedOrigin(key, req) ?? {
      requestId: req.id ?? null,
      ip: clientIp(req, trust),
      userAgent: userAgentOf(req) || null,
    }
  );
}

/** D53: the handler after this runs with the request's origin, which the audit log records. */
export function requestOriginGate(trust: TrustProxy, key: Buffer): RequestHandler {
  return (req, _res, next) => withRequestOrigin(originOf(req, trust, key), next);
}

/** Runs a page's change with the request's origin (pages read their own bodies, outside the gate above). */
export function withOriginOf<T>(req: Request, trust: TrustProxy, secretKey: Buffer, work: () => T): T {
  return withRequestOrigin(originOf(req, trust, dashboardOriginKey(secretKey)), work);
}

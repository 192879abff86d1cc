import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceMetrics } from '../metrics';
import type { RequestLog } from './access-log';
import { etagOf, ifNoneMatchMatches } from './conditional';
import { PUBLIC_CORS_HEADERS } from './cors';
import { type RateDecision, rateLimitHeaders } from './rate-limit';
import { requestIdOf } from './request-id';
import { TtlCache } from './ttl-cache';

/** D29: shoppers' browsers may reuse an answer for a minute. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60';
/** In-process lifetime: short enough that any write is visible within seconds on every process. */
export const PUBLIC_CACHE_TTL_MS = 5_000;

interface Entry {
  json: Buffer;
  etag: string;
}

const COHORT_HEADERS = ['x-svc-partner-app-id', 'x-svc-partner-variant'] as const;
const CORS_PAIRS = Object.entries(PUBLIC_CORS_HEADERS).flat();

/**
 * Answers of the public reads, keyed by the exact request URL and cohort headers. The route
 * handler fills it after validating a request; `fastPath` then serves the same request from
 * memory ahead of routing and validation, which is what the shopper widget needs on every
 * page view (scripts/bench/public-read.ts). Only successful answers are kept.
 */
export class PublicReadCache {
  private readonly entries = new TtlCache<Entry>(PUBLIC_CACHE_TTL_MS);

  constructor(
    private readonly paths: ReadonlySet<string>,
    private readonly log: RequestLog,
    private readonly metrics: ServiceMetrics,
    /** The route's per-IP limit (D4), decided from memory. */
    private readonly limit: (req: IncomingMessage) => RateDecision,
  ) {}

  private key(url: string, headers: Record<string, string | string[] | undefined>): string {
    return `${url}\n${headers[COHORT_HEADERS[0]] ?? ''}\n${headers[COHORT_HEADERS[1]] ?? ''}`;
  }

  /** Stores an answer and returns its ETag. */
  remember(url: string, headers: Record<string, string | string[] | undefined>, body: unknown): string {
    const json = Buffer.from(JSON.stringify(body));
    const etag = etagOf(json.toString());
    this.entries.set(this.key(url, headers), { json, etag });
    return etag;
  }

  /**
   * Answers a request from memory when it can (true), before Express sees it. It sets what
   * the full stack would: request id, nosniff, CORS, caching headers, 304 on a matching tag.
   */
  tryServe(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || !req.url) return false;
    const q = req.url.indexOf('?');
    const path = q === -1 ? req.url : req.url.slice(0, q);
    if (!this.paths.has(path)) return false;
    const hit = this.entries.get(this.key(req.url, req.headers));
    if (!hit) {
      this.metrics.publicCacheLookup(false);
      return false;
    }
    const decision = this.limit(req);
    // Over the limit: the full stack answers the 429 in the D2 shape.
    if (!decision.allowed) return false;
    this.metrics.publicCacheLookup(true);
    const start = process.hrtime.bigint();
    const requestId = requestIdOf(req.headers);
    // One flat header list and one writeHead: this path runs on every shopper page view.
    const headers: string[] = [
      'x-request-id',
      requestId,
      'x-content-type-options',
      'nosniff',
      ...CORS_PAIRS,
      'cache-control',
      PUBLIC_CACHE_CONTROL,
      'etag',
      hit.etag,
      ...rateLimitHeaders(decision),
    ];
    if (ifNoneMatchMatches(req.headers['if-none-match'], hit.etag)) {
      res.writeHead(304, headers);
      res.end();
    } else {
      headers.push('content-type', 'application/json; charset=utf-8', 'content-length', String(hit.json.length));
      res.writeHead(200, headers);
      res.end(hit.json);
    }
    this.log({ requestId, method: 'GET', path, route: path, status: res.statusCode, start });
    return true;
  }
}

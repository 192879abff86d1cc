import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_HEADER_LENGTH } from '@protection-service/contract';
import { StoreCache } from '../cache/store-cache';
import { currentRequest } from '../lib/request-context';
import type { ServiceMetrics } from '../metrics';
import type { RequestLog } from './access-log';
import { etagOf, ifNoneMatchMatches } from './conditional';
import { PUBLIC_CORS_HEADERS } from './cors';
import { type RateDecision, rateLimitHeaders } from './rate-limit';
import { requestIdOf } from './request-id';
import { compilePaths } from './unmatched';

/** D29: shoppers' browsers may reuse an answer for a minute. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60';
/** Memory bounds whatever shoppers send: entries, and bytes of keys plus bodies. */
const PUBLIC_CACHE_MAX_ENTRIES = 10_000;
const PUBLIC_CACHE_MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  json: Buffer;
  etag: string;
}

const COHORT_HEADERS = ['x-svc-partner-app-id', 'x-svc-partner-variant'] as const;
const CORS_PAIRS = Object.entries(PUBLIC_CORS_HEADERS).flat();

type Headers = Record<string, string | string[] | undefined>;

/**
 * Answers of the public reads, keyed by the exact request URL and cohort headers. A route
 * handler fills it after validating a request; `tryServe` then answers the same request from
 * memory ahead of routing and validation, which is what the shopper widget needs on every
 * page view (scripts/bench/public-read.ts). Only successful answers are kept, each tagged
 * with its store so a change of that store drops exactly its answers.
 */
export class PublicReadCache {
  /** Answers by request; the change listener drops a store's answers through it. */
  readonly store = new StoreCache<Entry>({
    sizeOf: (key, e) => key.length + e.json.length + e.etag.length,
    maxEntries: PUBLIC_CACHE_MAX_ENTRIES,
    maxBytes: PUBLIC_CACHE_MAX_BYTES,
  });
  private readonly patterns: { path: string; regex: RegExp }[];

  constructor(
    /** The public route paths (contract patterns, `:params` included). */
    paths: readonly string[],
    private readonly log: RequestLog,
    private readonly metrics: ServiceMetrics,
    /** The route's per-IP limit (D4), decided from memory; `undefined` when that needs a flush. */
    private readonly limit: (routePath: string, req: IncomingMessage) => RateDecision | undefined,
  ) {
    this.patterns = paths.map((path) => ({ path, regex: compilePaths([{ method: 'GET', path }])[0]!.regex }));
  }

  /** Taken before reading the database for an answer, handed back to `remember`. */
  get mark(): number {
    return this.store.mark;
  }

  /**
   * The URL, the cohort headers and the UTC hour: an answer carrying an offer token (D55) is
   * served only within the hour it was signed in, so one hour's answers share one token.
   */
  keyOf(url: string, headers: Headers, now = Date.now()): string {
    const hour = Math.floor(now / 3_600_000);
    return `${url}\n${headers[COHORT_HEADERS[0]] ?? ''}\n${headers[COHORT_HEADERS[1]] ?? ''}\n${hour}`;
  }

  /**
   * Stores an answer of `storeId` and returns its ETag. `mark` is `this.mark` from before the
   * answer was read: when an invalidation came in between, the answer may predate the write
   * that caused it and is not kept.
   */
  remember(url: string, headers: Headers, body: unknown, storeId: string, mark: number): string {
    const json = Buffer.from(JSON.stringify(body));
    const etag = etagOf(json.toString());
    this.store.set(this.keyOf(url, headers), storeId, { json, etag }, mark);
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
    const route = this.patterns.find((p) => p.regex.test(path));
    if (!route) return false;
    // If-None-Match is not in the key: one past the document's bound gets the full stack's 400 (D47).
    if ((req.headers['if-none-match']?.length ?? 0) > MAX_HEADER_LENGTH) return false;
    const hit = this.store.get(this.keyOf(req.url, req.headers));
    if (!hit) {
      this.metrics.publicCacheLookup(false);
      return false;
    }
    const decision = this.limit(route.path, req);
    // Over the limit, or a limit that needs the shared total first: the full stack decides
    // (and answers a 429 in the D2 shape).
    if (!decision?.allowed) return false;
    this.metrics.publicCacheLookup(true);
    const start = process.hrtime.bigint();
    const requestId = currentRequest()?.requestId ?? requestIdOf(req.headers);
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
    this.log({ requestId, method: 'GET', path, route: route.path, status: res.statusCode, start });
    return true;
  }
}

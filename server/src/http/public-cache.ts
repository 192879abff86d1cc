import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { logAccess } from './access-log';
import { clientIp } from './client-ip';
import { etagOf, ifNoneMatchMatches } from './conditional';
import { PUBLIC_CORS_HEADERS } from './cors';
import { type RateDecision, rateLimitHeaders } from './rate-limit';
import { requestIdOf } from './request-id';
import { TtlCache } from './ttl-cache';
import { compilePaths } from './unmatched';

/** D29: shoppers' browsers may reuse an answer for a minute. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60';
/**
 * In-process lifetimes (D29). While this process hears the change channel (../db/listener.ts)
 * an answer may stay an hour: every write that changes it drops it on every process. While
 * the channel is down, answers live only seconds, so a write is still visible within seconds.
 */
export const PUBLIC_CACHE_LONG_TTL_MS = 3_600_000;
export const PUBLIC_CACHE_SHORT_TTL_MS = 5_000;
/** Memory bounds whatever shoppers send: entries, and bytes of keys plus bodies. */
export const PUBLIC_CACHE_MAX_ENTRIES = 10_000;
export const PUBLIC_CACHE_MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  json: Buffer;
  etag: string;
  storeId: string;
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
  private readonly entries = new TtlCache<Entry>(
    (key, e) => key.length + e.json.length + e.etag.length,
    PUBLIC_CACHE_MAX_ENTRIES,
    PUBLIC_CACHE_MAX_BYTES,
  );
  private readonly patterns: { path: string; regex: RegExp }[];
  /** Bumped by every invalidation: an answer read before one is not kept (see `remember`). */
  private generation = 0;
  private ttlMs = PUBLIC_CACHE_SHORT_TTL_MS;

  constructor(
    /** The public route paths (contract patterns, `:params` included). */
    paths: readonly string[],
    private readonly logger: Logger,
    /** The route's per-IP limit (D4), decided from memory. */
    private readonly limit: (routePath: string, ip: string) => RateDecision,
  ) {
    this.patterns = paths.map((path) => ({ path, regex: compilePaths([{ method: 'GET', path }])[0]!.regex }));
  }

  /** Whether answers may live long (the change channel is heard) or only seconds. */
  setLongLived(long: boolean): void {
    this.ttlMs = long ? PUBLIC_CACHE_LONG_TTL_MS : PUBLIC_CACHE_SHORT_TTL_MS;
    this.clear();
  }

  get lifetimeMs(): number {
    return this.ttlMs;
  }

  get stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.totalBytes };
  }

  /** Taken before reading the database for an answer, handed back to `remember`. */
  get mark(): number {
    return this.generation;
  }

  /** Drops every answer of one store (a write of its pricing, widgets, contexts or installs). */
  invalidateStore(storeId: string): void {
    this.generation++;
    this.entries.deleteWhere((e) => e.storeId === storeId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private key(url: string, headers: Headers): string {
    return `${url}\n${headers[COHORT_HEADERS[0]] ?? ''}\n${headers[COHORT_HEADERS[1]] ?? ''}`;
  }

  /**
   * Stores an answer of `storeId` and returns its ETag. `mark` is `this.mark` from before the
   * answer was read: when an invalidation came in between, the answer may predate the write
   * that caused it and is not kept.
   */
  remember(url: string, headers: Headers, body: unknown, storeId: string, mark: number): string {
    const json = Buffer.from(JSON.stringify(body));
    const etag = etagOf(json.toString());
    if (mark === this.generation) this.entries.set(this.key(url, headers), { json, etag, storeId }, this.ttlMs);
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
    const hit = this.entries.get(this.key(req.url, req.headers));
    if (!hit) return false;
    const decision = this.limit(route.path, clientIp(req));
    // Over the limit: the full stack answers the 429 in the D2 shape.
    if (!decision.allowed) return false;
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
    logAccess(this.logger, requestId, 'GET', path, res.statusCode, start);
    return true;
  }
}

import { createHash } from 'node:crypto';
import { isRouteMeta, ZIdempotencyHeaders } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database';
import { type Loop, type LoopLog, startLoop } from '../lib/loop';
import type { ServiceMetrics } from '../metrics';
import { HttpError, zodIssues } from './errors';
import { uploadDigests } from './multipart';

/** D33: a key answers its first answer again for 24 hours. */
const IDEMPOTENCY_TTL_HOURS = 24;
/** A first request still 'running' after this long died with its process; its key is free again. */
const ABANDONED_AFTER_SECONDS = 300;
/** Answers that say "try again" rather than "this is the outcome": not kept, the key is freed. */
const TRANSIENT = new Set([429, 500, 502, 503, 504]);
/** Headers of the first answer a replay repeats; the rest (request id, rate limits) are per request. */
const KEPT_HEADERS = ['content-type', 'location', 'cache-control'] as const;

const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Whether a route takes an Idempotency-Key: every token-authenticated POST of the contract
 * (D33), read from its metadata, so a route gets this without code of its own.
 */
export function takesIdempotencyKey(route: AppRoute): boolean {
  return route.method === 'POST' && isRouteMeta(route.metadata) && route.metadata.auth === 'token';
}

interface StoredAnswer {
  route: string;
  requestDigest: string;
  state: 'running' | 'done';
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: Buffer | null;
}

/**
 * The one Idempotency-Key mechanism (D33), installed after authentication (it keys by the
 * caller's installation, or a staff token's member and store, D49) and before the handler. For a key seen for the first time it reserves
 * the key (state 'running'), lets the request run, and stores the final answer (status, the
 * headers that matter, the body bytes) before the answer leaves, so that a client that got
 * an answer can always get it again. Then, within 24 hours and for the same installation:
 * the same route and body answer the stored answer byte for byte with
 * `Idempotent-Replayed: true`, without running the handler; another route or body answers
 * 409; a twin of a request still running answers 409. Transient failures (5xx, 429) are not
 * kept, so a retry with the same key runs again.
 */
export function idempotency(
  db: Db,
  logger: Logger,
  metrics?: Pick<ServiceMetrics, 'idempotentReplay'>,
): RequestHandler {
  return (req: Request & { tsRestRoute?: AppRoute }, res: Response, next: NextFunction) => {
    const route = req.tsRestRoute;
    if (!route || !takesIdempotencyKey(route) || req.caller?.kind !== 'token') return next();
    if (req.headers['idempotency-key'] === undefined) return next();
    const parsed = ZIdempotencyHeaders.safeParse(req.headers);
    if (!parsed.success || parsed.data['idempotency-key'] === undefined) {
      const issues = parsed.success ? [] : zodIssues(parsed.error, 'headers');
      return next(
        new HttpError(400, 'invalid request: headers.idempotency-key: must be 1-255 printable characters', { issues }),
      );
    }
    const key = parsed.data['idempotency-key'];
    const claims = req.caller.claims;
    // D49: a staff token's keys are the member's in that store, apart from every app's.
    const owner: KeyOwner =
      claims.kind === 'staff'
        ? { kind: 'member', storeId: claims.storeId, userId: claims.userId }
        : { kind: 'installation', installationId: claims.installationId };
    const routeName = `${route.method} ${route.path}`;
    const digest = requestDigest(req);
    handle(db, logger, { owner, key, routeName, digest }, res, next).then((replayed) => {
      if (replayed) metrics?.idempotentReplay(route.path);
    }, next);
  };
}

/** Whose key it is: an installation's, or a store member's through a staff token (D49). */
type KeyOwner = { kind: 'installation'; installationId: string } | { kind: 'member'; storeId: string; userId: string };

interface KeyRef {
  owner: KeyOwner;
  key: string;
  routeName: string;
  digest: string;
}

/** Answers true when the stored answer was replayed. */
async function handle(db: Db, logger: Logger, ref: KeyRef, res: Response, next: NextFunction): Promise<boolean> {
  // Two tries: a stored answer may expire (and be swept) between the reservation and the read.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await reserveKey(db, ref)) {
      captureAnswer(db, logger, ref, res);
      next();
      return false;
    }
    const stored = await db
      .selectFrom('idempotencyKeys')
      .select(['route', 'requestDigest', 'state', 'responseStatus', 'responseHeaders', 'responseBody'])
      .where(ownedBy(ref))
      .executeTakeFirst();
    if (!stored) continue;
    answerFrom(stored as StoredAnswer, ref, res);
    return true;
  }
  throw new HttpError(409, 'a request with this Idempotency-Key is still in flight');
}

/**
 * Reserves the key for this request: true when it was free, expired, or abandoned by a process
 * that died mid-request. One statement, so of two twins exactly one wins.
 */
async function reserveKey(db: Db, ref: KeyRef): Promise<boolean> {
  const { owner } = ref;
  const [columns, values, target] =
    owner.kind === 'installation'
      ? [sql`installation_id`, sql`${owner.installationId}`, sql`(installation_id, key)`]
      : [sql`store_id, user_id`, sql`${owner.storeId}, ${owner.userId}`, sql`(store_id, user_id, key)`];
  const result = await sql`
    insert into idempotency_keys as k (${columns}, key, route, request_digest)
    values (${values}, ${ref.key}, ${ref.routeName}, ${ref.digest})
    on conflict ${target} do update set
      route = excluded.route, request_digest = excluded.request_digest, state = 'running',
      response_status = null, response_headers = null, response_body = null, created_at = now()
    where k.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
      or (k.state = 'running' and k.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS}))
    returning 1
  `.execute(db);
  return result.rows.length === 1;
}

/** The condition that finds the key's record, whoever owns it. */
function ownedBy(ref: KeyRef) {
  const { owner } = ref;
  return owner.kind === 'installation'
    ? sql<boolean>`installation_id = ${owner.installationId} and key = ${ref.key}`
    : sql<boolean>`store_id = ${owner.storeId} and user_id = ${owner.userId} and key = ${ref.key}`;
}

/** Replays the stored answer, or throws the D33 409 when it cannot be replayed. */
function answerFrom(stored: StoredAnswer, ref: KeyRef, res: Response): void {
  if (stored.route !== ref.routeName || stored.requestDigest !== ref.digest) {
    throw new HttpError(409, 'this Idempotency-Key was used with a different request');
  }
  if (stored.state !== 'done' || stored.responseStatus === null) {
    throw new HttpError(409, 'a request with this Idempotency-Key is still in flight');
  }
  const body = stored.responseBody ?? Buffer.alloc(0);
  res.status(stored.responseStatus);
  for (const [name, value] of Object.entries(stored.responseHeaders ?? {})) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.setHeader('content-length', body.length);
  res.end(body);
}

/**
 * Holds the answer back until it is stored: `res.end` (which `res.json` and the error handler
 * both end in) writes the record first, then sends. A transient failure frees the key instead.
 */
function captureAnswer(db: Db, logger: Logger, ref: KeyRef, res: Response): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    const [chunk, encoding] = args;
    const status = res.statusCode;
    const streamed = res.headersSent;
    const body =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? Buffer.from(chunk)
          : Buffer.alloc(0);
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const mine = sql`${ownedBy(ref)} and state = 'running'`;
    // An answer already partly sent cannot be replayed byte for byte: free the key instead.
    const settle =
      TRANSIENT.has(status) || streamed
        ? sql`delete from idempotency_keys where ${mine}`
        : sql`
            update idempotency_keys set state = 'done', response_status = ${status},
              response_headers = ${JSON.stringify(headers)}, response_body = ${body}
            where ${mine}`;
    settle.execute(db).then(
      () => end(...args),
      (err: unknown) => {
        logger.error({ err: err instanceof Error ? err.message : String(err) }, 'storing an idempotent answer failed');
        end(...args);
      },
    );
    return res;
  }) as Response['end'];
}

/**
 * What makes two requests "the same" (D33): the path with its query and the body, with
 * object keys in a canonical order so formatting and key order do not matter, and the API
 * version that serves it (D44: the same key at another version is another request).
 */
function requestDigest(req: Request): string {
  return createHash('sha256')
    .update(req.apiVersion ?? '')
    .update('\n')
    .update(req.originalUrl)
    .update('\n')
    .update(canonicalJson(req.body ?? null))
    .digest('base64url');
}

function canonicalJson(value: unknown): string {
  // A file part (D56) counts by its bytes' digest.
  if (value instanceof Blob) return JSON.stringify(`sha256:${uploadDigests.get(value) ?? ''}`);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Deletes expired keys (D33: 24 hours) in batches, every `everyMs` while the app runs. Reads
 * already treat an expired key as absent; this only keeps the table small.
 */
export class IdempotencySweeper {
  private readonly loop: Loop;
  constructor(
    private readonly db: Db,
    everyMs = 10 * 60_000,
    log?: LoopLog,
  ) {
    this.loop = startLoop('idempotency key sweep', { everyMs, log }, () => this.sweep());
  }

  /** Deletes every expired key; answers how many. */
  async sweep(batch = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await sql`
        delete from idempotency_keys where ctid = any (array(
          select ctid from idempotency_keys
          where created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
          limit ${batch}
        ))
      `.execute(this.db);
      const n = Number(result.numAffectedRows ?? 0n);
      total += n;
      if (n < batch) return total;
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

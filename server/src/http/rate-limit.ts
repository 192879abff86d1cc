import { sql } from 'kysely';
import type { Db } from '../db/database';
import { type Loop, type LoopLog, startLoop } from '../lib/loop';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetS: number;
}

/** D4 defaults, per minute. */
export const RATE_LIMITS = {
  /** Per access or dashboard token. */
  token: 600,
  /** Per IP on /v1/oauth/token, /v1/oauth/revoke, /v1/auth/login and /v1/auth/refresh. */
  auth: 60,
  /** Per IP on /v1/oauth/session/verify (spec). */
  sessionVerify: 30,
  /** Per IP on the public reads. */
  public: 1200,
};
export type RateLimits = typeof RATE_LIMITS;

const WINDOW_S = 60;

interface Local {
  window: number;
  limit: number;
  /** Total across all processes as of the last flush. */
  known: number;
  /** Hits of this process not yet written. */
  pending: number;
  /** Hits of this process being written: counted until the write answers the new total. */
  writing: number;
  /** Written at least once this window: from then on every flush writes its hits. */
  shared: boolean;
  /** When the write that answered `known` started (ms): the total is at least that fresh. */
  learnedAt: number;
}

/**
 * A key's hits stay in its process until they reach this share of its limit. Most keys of
 * the public reads (one per shopper address) never do, so they cost no database write; a key
 * that does is shared from then on.
 */
const SHARE_FROM = 0.1;

/**
 * Fixed one-minute windows counted in Postgres, so every process on one database shares
 * them (D4). Two ways to count:
 * - `exact`: one upsert per hit; for the low limits of the auth endpoints, which touch the
 *   database anyway and must not let a burst through.
 * - `local`: decided from memory against the last shared total plus this process's own
 *   hits; for token and public traffic, where a database round trip per request would cost
 *   more than the limit protects. A key's hits are written (in one statement for all keys,
 *   every `flushMs`) once this process has counted a tenth of its limit. Past that, a hit is
 *   admitted only on a total learned at most one flush ago: when the flush is late (a busy
 *   process, a slow database) or the key was idle here, the request waits for a flush rather
 *   than deciding on an old total. So with P processes a key admits at most its limit, plus
 *   (P - 1) tenths of it that other processes have not shared yet, plus what the others
 *   admitted in one flush interval (D4).
 */
export class RateLimiter {
  private readonly counts = new Map<string, Local>();
  /**
   * The keys the next flush writes: shared ones with new hits, those reaching their share,
   * and those whose total a request waits for.
   */
  private readonly dirty = new Set<string>();
  private sweptWindow = 0;
  private readonly loop: Loop;
  private flushing: Promise<void> | undefined;
  private lastCleanup = 0;

  constructor(
    private readonly db: Db,
    private readonly flushMs = 200,
    log?: LoopLog,
  ) {
    this.loop = startLoop('rate limit flush', { everyMs: flushMs, log }, () => this.flush());
  }

  private static window(nowMs: number): number {
    return Math.floor(nowMs / 1000 / WINDOW_S) * WINDOW_S;
  }

  private static decision(count: number, limit: number, window: number, nowMs: number): RateDecision {
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetS: Math.max(1, Math.ceil(window + WINDOW_S - nowMs / 1000)),
    };
  }

  async exact(key: string, limit: number, nowMs = Date.now()): Promise<RateDecision> {
    const window = RateLimiter.window(nowMs);
    const row = await this.db
      .insertInto('rateLimitCounters')
      .values({ key, windowStart: new Date(window * 1000), count: 1 })
      .onConflict((oc) => oc.columns(['key', 'windowStart']).doUpdateSet({ count: sql`rate_limit_counters.count + 1` }))
      .returning('count')
      .executeTakeFirstOrThrow();
    return RateLimiter.decision(row.count, limit, window, nowMs);
  }

  /**
   * Decides from memory, or answers `undefined` when memory is not enough to admit: the key is
   * shared and this process last learned its total more than one flush ago, or this process
   * has reached its share of a key it has never written. The caller then awaits `shared`.
   */
  local(key: string, limit: number, nowMs = Date.now()): RateDecision | undefined {
    const window = RateLimiter.window(nowMs);
    const state = this.state(key, limit, window);
    // A window's total only grows: a refusal holds however old the total it was decided on.
    const stale = state.shared ? nowMs - state.learnedAt > this.flushMs : state.pending >= limit * SHARE_FROM;
    if (stale && state.known + state.writing + state.pending < limit) return undefined;
    return this.admit(key, state, nowMs);
  }

  /**
   * Decides with what the other processes have counted no older than one flush (D4): from
   * memory when it is fresh, else after a flush that writes this key's hits and reads its
   * total. A flush that fails leaves the decision to memory, as the flush timer does.
   */
  async shared(key: string, limit: number, nowMs = Date.now()): Promise<RateDecision> {
    const fresh = this.local(key, limit, nowMs);
    if (fresh) return fresh;
    const state = this.state(key, limit, RateLimiter.window(nowMs));
    const learned = state.learnedAt;
    try {
      // A flush already under way may have taken its keys before this one: then one more.
      for (let i = 0; i < 2 && state.learnedAt === learned; i++) {
        this.dirty.add(key);
        await this.flush();
      }
    } catch {}
    const now = Date.now();
    return this.admit(key, this.state(key, limit, RateLimiter.window(now)), now);
  }

  private state(key: string, limit: number, window: number): Local {
    let state = this.counts.get(key);
    if (!state || state.window !== window) {
      state = { window, limit, known: 0, pending: 0, writing: 0, shared: false, learnedAt: 0 };
      this.counts.set(key, state);
    }
    return state;
  }

  private admit(key: string, state: Local, nowMs: number): RateDecision {
    const { limit, window } = state;
    const count = state.known + state.writing + state.pending + 1;
    if (count > limit) return RateLimiter.decision(count, limit, window, nowMs);
    state.pending += 1;
    if (state.shared || state.pending >= limit * SHARE_FROM) this.dirty.add(key);
    return RateLimiter.decision(count, limit, window, nowMs);
  }

  /** Writes this process's pending hits and learns the shared totals. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async write(): Promise<void> {
    const startedAt = Date.now();
    const current = RateLimiter.window(startedAt);
    if (current !== this.sweptWindow) {
      this.sweptWindow = current;
      for (const [key, state] of this.counts) if (state.window < current) this.counts.delete(key);
    }
    const taken: { key: string; state: Local; count: number }[] = [];
    for (const key of this.dirty) {
      const state = this.counts.get(key);
      // A key with no new hits is here because a request waits for its total: written as 0.
      if (!state || state.window < current) continue;
      state.shared = true;
      taken.push({ key, state, count: state.pending });
    }
    this.dirty.clear();
    if (taken.length > 0) {
      // Hits in flight still count: a request decided during the write must not see them gone.
      for (const t of taken) {
        t.state.pending -= t.count;
        t.state.writing += t.count;
      }
      let rows: { key: string; count: number; windowStart: Date }[];
      try {
        rows = await this.db
          .insertInto('rateLimitCounters')
          .values(taken.map((t) => ({ key: t.key, windowStart: new Date(t.state.window * 1000), count: t.count })))
          .onConflict((oc) =>
            oc.columns(['key', 'windowStart']).doUpdateSet({ count: sql`rate_limit_counters.count + excluded.count` }),
          )
          .returning(['key', 'count', 'windowStart'])
          .execute();
      } catch (err) {
        // Keep the hits for the next flush rather than forgetting them.
        for (const t of taken) {
          t.state.writing -= t.count;
          t.state.pending += t.count;
          this.dirty.add(t.key);
        }
        throw err;
      }
      for (const t of taken) t.state.writing -= t.count;
      for (const row of rows) {
        const state = this.counts.get(row.key);
        if (state && state.window * 1000 === row.windowStart.getTime()) {
          state.known = row.count;
          state.learnedAt = startedAt;
        }
      }
    }
    if (Date.now() - this.lastCleanup > 60_000) {
      this.lastCleanup = Date.now();
      await this.db
        .deleteFrom('rateLimitCounters')
        .where('windowStart', '<', new Date((current - 3600) * 1000))
        .execute();
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

/**
 * Standard headers for a limited request (D4) as a flat [name, value, …] list, the form
 * `writeHead` takes; 429 answers add Retry-After.
 */
export function rateLimitHeaders(d: RateDecision): string[] {
  const pairs = [
    'ratelimit-limit',
    String(d.limit),
    'ratelimit-remaining',
    String(d.remaining),
    'ratelimit-reset',
    String(d.resetS),
  ];
  if (!d.allowed) pairs.push('retry-after', String(d.resetS));
  return pairs;
}

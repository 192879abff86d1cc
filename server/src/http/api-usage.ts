import type { ApiVersion } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../db/database';
import { type Loop, startLoop } from '../lib/loop';

/** How often a process writes the calls it counted (D44: the API health report lags by at most this). */
const USAGE_FLUSH_MS = 1000;

interface Pending {
  clientId: string;
  version: ApiVersion;
  day: string;
  calls: number;
  last: Date;
}

/**
 * Counts each app's answers per dated version (D44) in memory and adds them to
 * `api_version_calls` (one row per app, version and UTC day) once a second in one statement,
 * so that a request never waits on it. What a crash loses is at most a second of counts.
 */
export class ApiUsage {
  private pending = new Map<string, Pending>();
  private readonly loop: Loop;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly logger?: Logger,
  ) {
    this.loop = startLoop('api usage flush', { everyMs: USAGE_FLUSH_MS, log: logger }, () => this.flush());
  }

  record(clientId: string, version: ApiVersion, at = new Date()): void {
    const day = this.dayOf(at);
    const key = `${clientId}\t${version}\t${day}`;
    const known = this.pending.get(key);
    if (known) {
      known.calls++;
      if (at > known.last) known.last = at;
    } else {
      this.pending.set(key, { clientId, version, day, calls: 1, last: at });
    }
  }

  /** The UTC day of the last call counted, and when it ends: one date format a day, not one a call. */
  private day = { text: '', from: 0, until: 0 };

  private dayOf(at: Date): string {
    const ms = at.getTime();
    if (ms < this.day.from || ms >= this.day.until) {
      const from = ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
      this.day = { text: at.toISOString().slice(0, 10), from, until: from + 86_400_000 };
    }
    return this.day.text;
  }

  /** Writes what was counted; a failed write keeps the counts for the next one, and throws. */
  flush(): Promise<void> {
    const done = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        await sql`
          insert into api_version_calls as c (client_id, api_version, day, calls, last_call_at)
          select * from unnest(
            ${batch.map((p) => p.clientId)}::text[], ${batch.map((p) => p.version)}::text[],
            ${batch.map((p) => p.day)}::date[], ${batch.map((p) => p.calls)}::bigint[],
            ${batch.map((p) => p.last.toISOString())}::timestamptz[]
          )
          on conflict (client_id, api_version, day) do update set
            calls = c.calls + excluded.calls, last_call_at = greatest(c.last_call_at, excluded.last_call_at)
        `.execute(this.db);
      } catch (err) {
        for (const p of batch) {
          const key = `${p.clientId}\t${p.version}\t${p.day}`;
          const known = this.pending.get(key);
          if (known) {
            known.calls += p.calls;
            if (p.last > known.last) known.last = p.last;
          } else this.pending.set(key, p);
        }
        throw err;
      }
    });
    this.flushing = done.catch(() => {});
    return done;
  }

  /** Stops the loop and writes what is left. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flush().catch((err: unknown) =>
      this.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'api usage not written at stop'),
    );
  }
}

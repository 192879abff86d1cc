import { sql } from 'kysely';
import type { Db } from '../db/database';
import { type Loop, type LoopLog, startLoop } from '../lib/loop';

/** How far back each read looks: a transaction's rows carry its start time, not its commit's. */
const OVERLAP_MS = 30_000;
/** Rows older than this are deleted by whichever process reads next. */
const KEEP_MS = 3_600_000;
const PRUNE_EVERY_MS = 600_000;

/**
 * The recovery path of store-change announcements (D29): every `intervalMs` the rows of
 * `store_changes` from the last moments are read, and each one not applied yet drops its
 * store's cached answers. Normally the notification (./listener.ts) has applied it already
 * (`apply` with its id); a process that died between its commit and its notification leaves
 * the row to be found here, so the change reaches every cache within about `intervalMs`.
 */
export class StoreChangeFeed {
  /** Row ids applied, with when they were seen, forgotten once past the overlap. */
  private readonly applied = new Map<string, number>();
  private since: Date | undefined;
  private lastPrune = 0;
  private readonly loop: Loop;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly dropStore: (storeId: string) => void,
    intervalMs = 1_000,
    log?: LoopLog,
  ) {
    this.loop = startLoop('store change feed', { everyMs: intervalMs, log, runAtStart: true }, () => this.read());
  }

  /** Applies row `id` (when known) for `storeId`, once. */
  apply(storeId: string, id?: string): void {
    if (id !== undefined) {
      if (this.applied.has(id)) return;
      this.applied.set(id, Date.now());
    }
    this.dropStore(storeId);
  }

  /** Reads the rows since the last read, less the overlap (one read at a time). */
  read(): Promise<void> {
    this.reading ??= this.readOnce().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const from = new Date((this.since?.getTime() ?? Date.now()) - OVERLAP_MS);
    const { rows } = await sql<{ readAt: Date; id: number | null; storeId: string | null }>`
      select t.read_at, c.id, c.store_id
      from (select now() as read_at) t
      left join store_changes c on c.created_at >= ${from}
    `.execute(this.db);
    for (const row of rows) {
      if (row.id !== null && row.storeId !== null) this.apply(row.storeId, String(row.id));
    }
    if (rows[0]) this.since = rows[0].readAt;
    const now = Date.now();
    for (const [id, at] of this.applied) if (at < now - 2 * OVERLAP_MS) this.applied.delete(id);
    if (now - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.db
        .deleteFrom('storeChanges')
        .where('createdAt', '<', new Date(now - KEEP_MS))
        .execute();
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

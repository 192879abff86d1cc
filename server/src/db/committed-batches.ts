import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from './database';

/** Most keys one write takes. */
const BATCH = 1000;

/**
 * Keys of rows that committed changes left for after their commit (an outbox's rows to
 * queue), written in batches by one statement each. Keys gather while a batch is in flight,
 * so under load each write carries many; when idle a key waits one turn of the event loop.
 * A write that fails is dropped: its rows stay unqueued, and the outbox's sweep queues them a
 * moment later, so nothing is lost, only delayed.
 */
class CommittedBatches<K> {
  private waiting: K[] = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly write: (db: Db, keys: readonly K[]) => Promise<unknown>,
  ) {}

  /** Resolves once `keys` have been written (or left to the sweep). */
  add(keys: readonly K[]): Promise<void> {
    this.waiting.push(...keys);
    this.draining ??= this.drain();
    return this.draining;
  }

  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      await nextTurn();
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, BATCH);
        await this.write(this.db, batch).catch(() => {});
      }
    } finally {
      this.draining = undefined;
    }
  }
}

const batches = new WeakMap<Db, Map<unknown, CommittedBatches<unknown>>>();

/**
 * Hands `keys` to the batches of `write` on `db` (one batcher per database and write);
 * resolves once they have been written.
 */
export function writeInBatches<K>(
  db: Db,
  write: (db: Db, keys: readonly K[]) => Promise<unknown>,
  keys: readonly K[],
): Promise<void> {
  if (keys.length === 0) return Promise.resolve();
  let ofDb = batches.get(db);
  if (!ofDb) {
    ofDb = new Map();
    batches.set(db, ofDb);
  }
  let batcher = ofDb.get(write) as CommittedBatches<K> | undefined;
  if (!batcher) {
    batcher = new CommittedBatches(db, write);
    ofDb.set(write, batcher as CommittedBatches<unknown>);
  }
  return batcher.add(keys);
}

/** Resolves once every key handed to `writeInBatches` on `db` has been written: for a clean stop. */
export async function batchesWritten(db: Db): Promise<void> {
  for (const batcher of batches.get(db)?.values() ?? []) await batcher.settled();
}

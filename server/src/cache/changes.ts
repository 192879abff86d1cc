import { sql } from 'kysely';
import type { Db } from '../db/database';
import { afterCommit } from '../db/transact';

/**
 * Cross-process change announcements (D13, D29). Domain code calls `announce…` inside the
 * transaction of the write; the notification goes out after it commits (a rolled-back write
 * announces nothing), never inside it: a NOTIFY makes its transaction's commit take
 * PostgreSQL's cluster-wide notification lock through the WAL flush. Every server process
 * listens on the channel with one dedicated connection (./listener.ts). What a process dying
 * between commit and notification would lose, the feeds recover: revocations from their table
 * (../domain/auth/revocations.ts), store changes from `store_changes` (./store-change-feed.ts).
 */
export const CHANGES_CHANNEL = 'svc_changes';

export type Change =
  /**
   * Something a store's public reads answer from changed: pricing, widgets, contexts,
   * cohorts, installs. `id`: its `store_changes` row, so the feed does not apply it twice.
   */
  | { kind: 'store'; storeId: string; id?: string }
  /** A row was added to the revocation feed. */
  | { kind: 'revocation' };

/** Sends `change` once `trx` has committed (at once, and awaited, outside a transaction). */
function announce(trx: Db, change: Change): void | Promise<void> {
  return afterCommit(trx, (db) =>
    sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(change)})`.execute(db).then(
      () => {},
      // Missed notifications are the feeds' to recover.
      () => {},
    ),
  );
}

/** A revocation was recorded in `trx` (D13): every process re-reads the feed once it commits. */
export async function announceRevocation(trx: Db): Promise<void> {
  await announce(trx, { kind: 'revocation' });
}

/** The public-read invalidation of one store (D29), recorded in `trx` and announced after it commits. */
export async function announceStoreChange(trx: Db, storeId: string): Promise<void> {
  const { id } = await trx.insertInto('storeChanges').values({ storeId }).returning('id').executeTakeFirstOrThrow();
  await announce(trx, { kind: 'store', storeId, id: String(id) });
}

/**
 * A store was deleted (D45, a test store): its cached answers are dropped once `trx` commits.
 * No `store_changes` row is written, since none of a deleted store's rows may remain; a
 * notification lost to a crash leaves its cached answers to expire with their time to live.
 */
export function announceStoreDeleted(trx: Db, storeId: string): void | Promise<void> {
  return announce(trx, { kind: 'store', storeId });
}

/** Parses a payload heard on the channel; anything else is ignored (undefined). */
export function parseChange(payload: string | undefined): Change | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Partial<Change> & { storeId?: unknown; id?: unknown };
    if (value.kind === 'revocation') return { kind: 'revocation' };
    if (value.kind === 'store' && typeof value.storeId === 'string') {
      return { kind: 'store', storeId: value.storeId, ...(typeof value.id === 'string' ? { id: value.id } : {}) };
    }
  } catch {
    // not ours
  }
  return undefined;
}

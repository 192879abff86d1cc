import { sql } from 'kysely';
import type { Db } from '../db/database';

/**
 * Cross-process change announcements (D13, D29). Domain code calls `announce` inside the
 * transaction of the write: Postgres delivers a NOTIFY only when that transaction commits,
 * so a rolled-back write announces nothing. Every server process listens on the channel with
 * one dedicated connection (./listener.ts) and acts on what it hears.
 */
export const CHANGES_CHANNEL = 'svc_changes';

export type Change =
  /** Something a store's public reads answer from changed: pricing, widgets, contexts, cohorts, installs. */
  | { kind: 'store'; storeId: string }
  /** A row was added to the revocation feed. */
  | { kind: 'revocation' };

export async function announce(trx: Db, change: Change): Promise<void> {
  await sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(change)})`.execute(trx);
}

/** Shorthand for the public-read invalidation of one store (D29). */
export function announceStoreChange(trx: Db, storeId: string): Promise<void> {
  return announce(trx, { kind: 'store', storeId });
}

/** Parses a payload heard on the channel; anything else is ignored (undefined). */
export function parseChange(payload: string | undefined): Change | undefined {
  try {
    const value = JSON.parse(payload ?? '') as Partial<Change> & { storeId?: unknown };
    if (value.kind === 'revocation') return { kind: 'revocation' };
    if (value.kind === 'store' && typeof value.storeId === 'string') return { kind: 'store', storeId: value.storeId };
  } catch {
    // not ours
  }
  return undefined;
}

import type { IsolationLevel } from 'kysely';
import type { Db } from './database';

/**
 * Work to do once a transaction has committed, given the database it ran on. Work that
 * answers a promise is awaited before `transact` resolves (D42: a change's e-mails are queued
 * before it answers), and must not throw: what it misses, a sweep recovers.
 */
type AfterCommit = (db: Db) => void | Promise<void>;

const hooks = new WeakMap<Db, AfterCommit[]>();

/**
 * Runs `work` in a transaction, then, only when it committed, what it asked for with
 * `afterCommit`. This is how a change hands work to other processes without making its own
 * commit wait for them (D32: delivery jobs are queued after the change commits). `isolation`
 * raises the transaction's isolation level (the analytics fold reads one snapshot throughout).
 */
export async function transact<T>(
  db: Db,
  work: (trx: Db) => Promise<T>,
  options: { isolation?: IsolationLevel } = {},
): Promise<T> {
  const after: AfterCommit[] = [];
  const begun = options.isolation ? db.transaction().setIsolationLevel(options.isolation) : db.transaction();
  const result = await begun.execute((trx) => {
    hooks.set(trx, after);
    return work(trx);
  });
  for (const f of after) await f(db);
  return result;
}

/**
 * Schedules `f` for after the commit of the transaction `trx` (one begun by `transact`). On a
 * database handle outside any transaction the statement before has committed already, so `f`
 * runs at once, and what it answers is handed back for a caller that must wait for it. In a
 * transaction begun some other way the work is skipped: what it would do must then be
 * recoverable without it (the delivery sweep queues what nobody queued).
 */
export function afterCommit(trx: Db, f: AfterCommit): void | Promise<void> {
  const after = hooks.get(trx);
  if (after) after.push(f);
  else if (!trx.isTransaction) return f(trx);
}

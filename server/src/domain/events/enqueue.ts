import { setImmediate as nextTurn } from 'node:timers/promises';
import { type RawBuilder, sql } from 'kysely';
import { type Db, prepared } from '../../db/database';

/** A delivery: one event for one app. */
export interface DeliveryKey {
  eventId: string;
  clientId: string;
}

/** The queue task that makes one delivery attempt. */
export const DELIVER_TASK = 'webhook_deliver';

/** Most deliveries one `add_jobs` call queues. */
const BATCH = 1000;

/**
 * Queues the delivery attempts of `rows` (a CTE with event_id, client_id, next_attempt_at)
 * as graphile-worker jobs, all in one `add_jobs` call (one NOTIFY); answers how many. The
 * select is empty, and `add_jobs` not called, when there is nothing to queue.
 */
export function addJobsFor(rows: RawBuilder<unknown>) {
  return sql<{ queued: number }>`
    select (select count(*) from graphile_worker.add_jobs(s.specs))::int as queued
    from (
      select array_agg(row(
        ${DELIVER_TASK}, json_build_object('eventId', r.event_id, 'clientId', r.client_id),
        null, r.next_attempt_at, null, null, null, null
      )::graphile_worker.job_spec) as specs
      from ${rows} r
    ) s
    where s.specs is not null`;
}

/**
 * Queues the jobs of those `keys` whose deliveries are due and not yet queued, marking them
 * queued, in one statement. A delivery whose change rolled back does not exist and queues
 * nothing; one queued already (by the sweep, or an earlier batch) is not queued twice.
 */
async function queueDue(db: Db, keys: readonly DeliveryKey[]): Promise<number> {
  const result = await prepared(sql<{ queued: number }>`
    with due as (
      update webhook_deliveries d set queued_at = now()
      from unnest(${keys.map((k) => k.eventId)}::text[], ${keys.map((k) => k.clientId)}::text[]) k (event_id, client_id)
      where d.event_id = k.event_id and d.client_id = k.client_id
        and d.status = 'pending' and d.queued_at is null and d.next_attempt_at is not null
      returning d.event_id, d.client_id, d.next_attempt_at
    )
    ${addJobsFor(sql`due`)}
  `).execute(db);
  return result.rows[0]?.queued ?? 0;
}

/**
 * The deliveries one process has committed and not yet queued. Keys gather while a batch is
 * in flight, so under load each `add_jobs` call carries many; when idle a key waits one turn
 * of the event loop. A batch that fails leaves its deliveries unqueued, and the sweep
 * (`sweepDeliveries`) queues them a moment later: nothing is lost, only delayed.
 */
class DeliveryQueueing {
  private waiting: DeliveryKey[] = [];
  private draining: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  add(keys: readonly DeliveryKey[]): void {
    this.waiting.push(...keys);
    this.draining ??= this.drain();
  }

  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      await nextTurn();
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, BATCH);
        await queueDue(this.db, batch).catch(() => {});
      }
    } finally {
      this.draining = undefined;
    }
  }
}

const queueings = new WeakMap<Db, DeliveryQueueing>();

/** Queues the jobs of deliveries whose change has committed on `db`, batched per database. */
export function queueDeliveries(db: Db, keys: readonly DeliveryKey[]): void {
  if (keys.length === 0) return;
  let queueing = queueings.get(db);
  if (!queueing) {
    queueing = new DeliveryQueueing(db);
    queueings.set(db, queueing);
  }
  queueing.add(keys);
}

/** Resolves once every delivery handed to `queueDeliveries` on `db` has been queued (or given to the sweep). */
export async function deliveriesQueued(db: Db): Promise<void> {
  await queueings.get(db)?.settled();
}

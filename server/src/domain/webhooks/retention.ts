import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { type Loop, startLoop } from '../../lib/loop';

/** Events deleted per statement (D48): each batch is a short transaction of its own. */
export const PRUNE_BATCH = 1000;

/** How often a delivering process prunes (D48: at most once a minute). */
export const PRUNE_EVERY_MS = 60_000;

/**
 * One batch of D48's retention: at most `batch` events older than `retentionDays` days whose
 * deliveries are all final (`delivered` or `failed`; an event with no delivery has none
 * pending), oldest first, deleted with their deliveries and attempts (the foreign keys
 * cascade). Answers how many events it took and how many it deleted.
 *
 * Two statements in one short transaction. The first locks the events, skipping any another
 * prune or a redelivery holds (a redelivery locks its event, `redeliver`), so concurrent
 * prunes share the work and never wait. The second, under a snapshot taken once those locks
 * are held, deletes those still without a pending delivery: a redelivery that committed in
 * between made its delivery pending again, and its event stays. Nothing else makes a final
 * delivery pending.
 */
export async function pruneEventBatch(
  db: Db,
  retentionDays: number,
  batch = PRUNE_BATCH,
): Promise<{ taken: number; deleted: number }> {
  return transact(db, async (trx) => {
    // Walks webhook_events_created_idx from its oldest end.
    const { rows } = await sql<{ id: string }>`
      select e.id from webhook_events e
      where e.created_at < now() - make_interval(days => ${retentionDays})
        and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
      order by e.created_at
      limit ${batch}
      for update of e skip locked
    `.execute(trx);
    if (rows.length === 0) return { taken: 0, deleted: 0 };
    const result = await sql`
      delete from webhook_events e
      where e.id = any (${rows.map((r) => r.id)}::text[])
        and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
    `.execute(trx);
    return { taken: rows.length, deleted: Number(result.numAffectedRows ?? 0n) };
  });
}

/**
 * D54 under D48's retention: what tracking events say of a shopper's address (description,
 * location) is cleared once older than the retention, and numbers no fulfillment claimed
 * within their 14 days are deleted with their events. One batch of each per run.
 */
export async function pruneTracking(db: Db, retentionDays: number, batch = PRUNE_BATCH): Promise<void> {
  await sql`
    update tracking_events set description = null, location = null
    where id in (
      select id from tracking_events
      where (description is not null or location is not null)
        and received_at < now() - make_interval(days => ${retentionDays})
      order by received_at limit ${batch}
    )
  `.execute(db);
  await sql`
    delete from tracking_packages where id in (
      select id from tracking_packages where order_id is null and unbound_until < now()
      order by unbound_until limit ${batch}
    )
  `.execute(db);
}

/**
 * Prunes batch after batch until a batch finds fewer than `batch` events, or `stopped` says
 * the process is stopping. Between two batches it rests as long as the last one took, so that
 * a backlog (a first deployment over a year of events) takes at most about half of what the
 * database does for as long as it lasts. Answers the events deleted and the batches
 * (statements) it took; `onBatch` hears each batch's duration.
 */
export async function pruneEvents(
  db: Db,
  retentionDays: number,
  {
    batch = PRUNE_BATCH,
    stopped = () => false,
    onBatch,
  }: { batch?: number; stopped?: () => boolean; onBatch?: (ms: number) => void } = {},
): Promise<{ events: number; batches: number }> {
  let events = 0;
  let batches = 0;
  for (;;) {
    const started = performance.now();
    const { taken, deleted } = await pruneEventBatch(db, retentionDays, batch);
    const took = performance.now() - started;
    onBatch?.(took);
    batches++;
    events += deleted;
    if (taken < batch || stopped()) {
      await pruneTracking(db, retentionDays, batch);
      return { events, batches };
    }
    await new Promise((resolve) => setTimeout(resolve, took));
    if (stopped()) return { events, batches };
  }
}

/**
 * The retention of a delivering process (D48): `pruneEvents` every `everyMs`, one run at a
 * time, stopping between batches when the process stops. `report` hears each run's outcome.
 */
export class EventPruner {
  private readonly loop: Loop;

  constructor(
    private readonly db: Db,
    private readonly retentionDays: number,
    private readonly report: (outcome: { events: number; batches: number } | { error: unknown }) => void,
    everyMs = PRUNE_EVERY_MS,
  ) {
    this.loop = startLoop('webhook event retention', { everyMs }, (stopping) =>
      pruneEvents(this.db, this.retentionDays, { stopped: stopping }).then(
        (outcome) => this.report(outcome),
        (error: unknown) => this.report({ error }),
      ),
    );
  }

  /** Stops the loop, and waits for a run in progress to end its batch. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}

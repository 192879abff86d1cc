import { type RawBuilder, sql } from 'kysely';
import { writeInBatches } from '../../db/committed-batches';
import { type Db, prepared } from '../../db/database';
import { addJobs } from '../../db/jobs';

/** A delivery: one event for one app. */
export interface DeliveryKey {
  eventId: string;
  clientId: string;
}

/** The queue task that makes one delivery attempt. */
export const DELIVER_TASK = 'webhook_deliver';

/**
 * The delivery jobs of `rows` (a CTE or subquery with event_id, client_id, next_attempt_at),
 * in one `add_jobs` call; nothing when it has no row.
 */
export function addDeliveryJobs(rows: RawBuilder<unknown>) {
  return addJobs(
    DELIVER_TASK,
    sql`(select json_build_object('eventId', event_id, 'clientId', client_id) as payload, next_attempt_at as run_at from ${rows} d)`,
  );
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
    ${addDeliveryJobs(sql`due`)}
  `).execute(db);
  return result.rows[0]?.queued ?? 0;
}

/**
 * Queues the jobs of deliveries whose change has committed on `db`, batched per process with
 * those of other changes; a delivery a failed batch leaves unqueued is queued by the sweep.
 */
export function queueDeliveries(db: Db, keys: readonly DeliveryKey[]): void {
  void writeInBatches(db, queueDue, keys);
}

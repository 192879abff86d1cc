import { type RawBuilder, sql } from 'kysely';
import { writeInBatches } from '../../db/committed-batches';
import { type Db, prepared } from '../../db/database';
import { addJobs } from '../../db/jobs';
import { lockedByKey } from '../../db/locked-by-key';

/** A delivery: one event for one app. */
export interface DeliveryKey {
  eventId: string;
  clientId: string;
}

/** The queue task that makes the attempts of the deliveries its job names. */
export const DELIVER_TASK = 'webhook_deliver';

/**
 * Most deliveries one job names. A job's deliveries share its queue round trips and their
 * leases and outcomes are written in one statement each (`runDeliveries`), which is most of
 * what an attempt costs the delivering process.
 */
const DELIVERIES_PER_JOB = 10;

/** A job's payload: one delivery (every job queued before jobs named several), or several. */
export type DeliveryJob = DeliveryKey | { deliveries: DeliveryKey[] };

export function deliveriesOf(job: DeliveryJob): DeliveryKey[] {
  return 'deliveries' in job ? job.deliveries : [job];
}

/** `keys` as a relation (event_id, client_id), for `lockedDeliveries`. */
export function deliveryKeys(keys: readonly DeliveryKey[]): RawBuilder<unknown> {
  return sql`(select * from unnest(${keys.map((k) => k.eventId)}::text[], ${keys.map((k) => k.clientId)}::text[]) k (event_id, client_id))`;
}

/** The deliveries `keys` names (a relation with event_id and client_id), locked: see `lockedByKey`. */
export function lockedDeliveries(keys: RawBuilder<unknown>): RawBuilder<unknown> {
  return lockedByKey('webhook_deliveries', ['event_id', 'client_id'], keys);
}

/**
 * The delivery jobs of `rows` (a CTE or subquery with event_id, client_id, next_attempt_at),
 * in one `add_jobs` call; nothing when it has no row. Deliveries due already share jobs, up to
 * DELIVERIES_PER_JOB each; one due later shares only with those due at the same moment, so
 * that no retry runs later than its own schedule or Retry-After asked (D35).
 */
export function addDeliveryJobs(rows: RawBuilder<unknown>) {
  return addJobs(
    DELIVER_TASK,
    sql`(
      select case when count(*) = 1
          then json_build_object('eventId', min(event_id), 'clientId', min(client_id))
          else json_build_object('deliveries', json_agg(json_build_object('eventId', event_id, 'clientId', client_id)))
        end as payload,
        min(next_attempt_at) as run_at
      from (
        select event_id, client_id, next_attempt_at, greatest(next_attempt_at, now()) as due_at,
          (row_number() over (partition by greatest(next_attempt_at, now()) order by next_attempt_at) - 1)
            / ${sql.raw(String(DELIVERIES_PER_JOB))} as job
        from ${rows} d
      ) d
      group by due_at, job
    )`,
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
      from ${lockedDeliveries(deliveryKeys(keys))} latest
      where d.event_id = latest.event_id and d.client_id = latest.client_id
        and latest.status = 'pending' and latest.queued_at is null and latest.next_attempt_at is not null
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

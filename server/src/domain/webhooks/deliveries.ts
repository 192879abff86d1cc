import { type ApiVersion, isApiVersion, LATEST_API_VERSION, type WebhookTopic } from '@protection-service/contract';
import { sql } from 'kysely';
import { type Db, prepared } from '../../db/database';
import { transact } from '../../db/transact';
import { contextOf, currentTraceparent, inSpan, linkTo, SpanKind, tracingOn } from '../../lib/tracing';
import { webhookSecretOf } from '../identity/apps';
import type { AttemptSlots } from './attempt-slots';
import { addDeliveryJobs, type DeliveryKey, deliveryKeys, lockedDeliveries } from './enqueue';
import { modeWebhookUrl } from './record';
import { type AttemptResult, delivered, MAX_RETRY_AFTER_S, sendWebhook } from './send';
import type { WebhookSettings } from './settings';

/**
 * The life of a delivery (D32, D35). A job of the queue names one delivery or several; the
 * process that runs it takes their leases in one statement (a conditional update, so of
 * several processes exactly one wins each), makes their attempts concurrently, then in one
 * statement logs them and, for each, either ends the delivery or schedules its next attempt
 * and queues its job.
 * A process killed mid-attempt leaves its leases behind; once they expire, `sweepExpiredLeases`
 * (run by every delivering process) makes the deliveries due again, and each attempt is made
 * again with the same event id.
 */

/** How long past the attempt's own timeout and its wait for a slot a lease lasts: room for logging the outcome. */
const LEASE_MARGIN_MS = 3000;

/**
 * A lease covers the wait for a slot (at most the attempts in flight, one timeout: see
 * AttemptSlots), the attempt (one timeout) and the record of its outcome.
 */
function leaseMs(config: Pick<WebhookSettings, 'webhookTimeoutMs'>): number {
  return 2 * config.webhookTimeoutMs + LEASE_MARGIN_MS;
}

interface Leased extends DeliveryKey {
  installationId: string;
  attemptCount: number;
  topic: WebhookTopic;
  body: unknown;
  createdAt: Date;
  /** The receiver's pin when the event was recorded (D44); null for deliveries recorded before versions. */
  apiVersion: string | null;
  /** D45: the event's store's mode. */
  livemode: boolean;
  webhookUrl: string | null;
  webhookSecretCiphertext: string;
  previousWebhookSecretCiphertext: string | null;
  previousWebhookSecretExpiresAt: Date | null;
  /** The trace of the change that recorded the event, when tracing was on. */
  traceparent: string | null;
}

/**
 * Takes the leases of those `keys` whose deliveries are due and nobody holds, all under
 * `token`. The rows are locked in key order (`lockedDeliveries`), so that two processes taking
 * overlapping sets (a sweep re-queued a delivery an old job still names) wait for each other
 * instead of deadlocking.
 */
async function takeLeases(db: Db, keys: readonly DeliveryKey[], token: string, lease: number): Promise<Leased[]> {
  const result = await prepared(sql<Leased>`
    update webhook_deliveries d
    set leased_until = now() + make_interval(secs => ${lease / 1000}), lease_token = ${token}
    from ${lockedDeliveries(deliveryKeys(keys))} due, webhook_events e, apps a, stores s
    where d.event_id = due.event_id and d.client_id = due.client_id
      and due.status = 'pending' and due.next_attempt_at <= now()
      and (due.leased_until is null or due.leased_until < now())
      and e.id = d.event_id and a.client_id = d.client_id and s.id = e.store_id
    returning d.event_id, d.client_id, d.installation_id, d.attempt_count, e.topic, e.body, e.created_at,
      d.api_version, s.livemode, ${modeWebhookUrl} as webhook_url,
      a.webhook_secret_ciphertext, a.previous_webhook_secret_ciphertext, a.previous_webhook_secret_expires_at,
      e.traceparent
  `).execute(db);
  return result.rows;
}

/** The secrets a delivery is signed with: the current one, and for 24 h after a rotation the previous one (D34). */
export function signingSecrets(
  secretKey: Buffer,
  app: Pick<Leased, 'webhookSecretCiphertext' | 'previousWebhookSecretCiphertext' | 'previousWebhookSecretExpiresAt'>,
  now = new Date(),
): string[] {
  const secrets = [webhookSecretOf(secretKey, app.webhookSecretCiphertext)];
  if (
    app.previousWebhookSecretCiphertext &&
    app.previousWebhookSecretExpiresAt &&
    app.previousWebhookSecretExpiresAt > now
  ) {
    secrets.push(webhookSecretOf(secretKey, app.previousWebhookSecretCiphertext));
  }
  return secrets;
}

/**
 * Seconds until the next attempt after `attempts` attempts, or null when the schedule is
 * exhausted (D32, D35): the schedule's step with up to 10% jitter; a 429's Retry-After
 * replaces it when longer, up to 24 h.
 */
export function nextDelaySeconds(
  schedule: readonly number[],
  attempts: number,
  retryAfterS: number | null,
  random = Math.random,
): number | null {
  const step = schedule[attempts - 1];
  if (step === undefined) return null;
  const jittered = step * (1 + 0.1 * random());
  return Math.min(Math.max(jittered, retryAfterS ?? 0), MAX_RETRY_AFTER_S);
}

/** D44: the version a delivery's body is rendered in; one recorded before versions, the latest. */
function renderedIn(recorded: string | null): ApiVersion {
  return isApiVersion(recorded) ? recorded : LATEST_API_VERSION;
}

/**
 * Runs one job: one attempt of each delivery it names that is still due, in batches of one
 * lease statement and one outcome statement each, no more attempts in flight than `slots` allow.
 * `attempted` sees each attempt's result (the process's figures).
 */
export async function runDeliveries(
  db: Db,
  config: WebhookSettings,
  slots: AttemptSlots,
  keys: readonly DeliveryKey[],
  attempted?: (result: AttemptResult) => void,
): Promise<void> {
  for (let next = 0; next < keys.length; ) {
    const reserved = await slots.reserve(keys.length - next);
    const batch = keys.slice(next, next + reserved);
    next += reserved;
    await attemptBatch(db, config, slots, batch, attempted);
  }
}

/** The attempts of `keys`, reserved in `slots`. */
async function attemptBatch(
  db: Db,
  config: WebhookSettings,
  slots: AttemptSlots,
  keys: readonly DeliveryKey[],
  attempted?: (result: AttemptResult) => void,
): Promise<void> {
  const token = crypto.randomUUID();
  let leased: Leased[] = [];
  try {
    leased = await takeLeases(db, keys, token, leaseMs(config));
  } finally {
    // Deliveries not leased (decided, not due, held elsewhere) need no attempt.
    slots.release(keys.length - leased.length);
  }
  if (leased.length === 0) return;
  const results = await Promise.all(leased.map((delivery) => slots.attempt(() => tracedAttempt(config, delivery))));
  if (attempted) for (const result of results) attempted(result);
  await recordOutcomes(db, config, token, leased, results);
}

/**
 * With tracing on, an attempt is a span of the trace of the change that recorded its event
 * (so one trace runs from a request to the webhooks it caused), linked to the job that ran it;
 * an event recorded with tracing off is attempted in the job's trace.
 */
function tracedAttempt(config: WebhookSettings, leased: Leased): Promise<AttemptResult> {
  if (!tracingOn()) return attempt(config, leased);
  const job = linkTo(currentTraceparent());
  return inSpan(
    `webhook ${leased.topic}`,
    {
      kind: SpanKind.CLIENT,
      parent: contextOf(leased.traceparent),
      links: job ? [job] : [],
      attributes: {
        'webhook.event_id': leased.eventId,
        'webhook.topic': leased.topic,
        'webhook.attempt': leased.attemptCount + 1,
        'app.client_id': leased.clientId,
      },
    },
    async (span) => {
      const result = await attempt(config, leased);
      span?.setAttributes({
        'webhook.outcome': delivered(result) ? 'delivered' : 'failed',
        'webhook.duration_ms': result.durationMs,
        ...(result.statusCode === null ? {} : { 'http.response.status_code': result.statusCode }),
      });
      return result;
    },
  );
}

/** One attempt of a leased delivery; never throws but for a secret it cannot decrypt. */
function attempt(config: WebhookSettings, leased: Leased): Promise<AttemptResult> {
  if (!leased.webhookUrl) {
    return Promise.resolve({
      attemptedAt: new Date(),
      durationMs: 0,
      statusCode: null,
      error: 'the app has no webhook URL',
      response: null,
      retryAfterS: null,
    });
  }
  return sendWebhook({
    url: leased.webhookUrl,
    secrets: signingSecrets(config.secretKey, leased),
    event: {
      id: leased.eventId,
      topic: leased.topic,
      createdAt: leased.createdAt,
      body: leased.body,
      apiVersion: renderedIn(leased.apiVersion),
      livemode: leased.livemode,
    },
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateUrls,
  });
}

/**
 * Logs the attempts of a batch and, for the lease holder only, decides each delivery, in one
 * statement. A holder whose lease was swept (or whose delivery an uninstall or a 410 ended)
 * only logs. A 410 also disables the installation's subscription, in the same transaction.
 * The lease token alone says who holds a delivery (whatever ends a lease or a delivery clears
 * it), so the update needs no condition that would lead the planner to a partial index.
 */
async function recordOutcomes(
  db: Db,
  config: WebhookSettings,
  token: string,
  leased: readonly Leased[],
  results: readonly AttemptResult[],
): Promise<void> {
  const outcomes = leased.map((delivery, i) => {
    const result = results[i]!;
    const attempts = delivery.attemptCount + 1;
    const ok = delivered(result);
    const gone = result.statusCode === 410;
    const delay = ok || gone ? null : nextDelaySeconds(config.webhookRetrySchedule, attempts, result.retryAfterS);
    const status = ok ? 'delivered' : delay === null ? 'failed' : 'pending';
    return { delivery, result, attempts, delay, status };
  });
  const column = <T>(of: (o: (typeof outcomes)[number]) => T) => outcomes.map(of);
  const finish = async (executor: Db) => {
    const decided = await prepared(sql<{ installationId: string; gone: boolean }>`
      with outcome as (
        select * from unnest(
          ${column((o) => o.delivery.eventId)}::text[], ${column((o) => o.delivery.clientId)}::text[],
          ${column((o) => o.result.attemptedAt)}::timestamptz[], ${column((o) => o.result.durationMs)}::int[],
          ${column((o) => o.result.statusCode)}::int[], ${column((o) => o.result.error)}::text[],
          ${column((o) => o.result.response)}::text[], ${column((o) => o.status)}::text[],
          ${column((o) => o.attempts)}::int[], ${column((o) => o.delay)}::float8[]
        ) o (event_id, client_id, attempted_at, duration_ms, status_code, error, response_excerpt, status,
          attempt_count, delay_s)
      ), attempt as (
        insert into webhook_attempts
          (event_id, client_id, attempted_at, duration_ms, status_code, error, response_excerpt)
        select event_id, client_id, attempted_at, duration_ms, status_code, error, response_excerpt from outcome
      ), decided as (
        update webhook_deliveries d
        set status = o.status, attempt_count = o.attempt_count, leased_until = null, lease_token = null,
          updated_at = now(),
          next_attempt_at = case when o.delay_s is null then null else now() + make_interval(secs => o.delay_s) end,
          queued_at = case when o.status = 'pending' then now() else d.queued_at end
        from outcome o
        where d.event_id = o.event_id and d.client_id = o.client_id and d.lease_token = ${token}
        returning d.event_id, d.client_id, d.next_attempt_at, d.status, d.installation_id, o.status_code = 410 as gone
      ), retry as (
        ${addDeliveryJobs(sql`(select * from decided where status = 'pending')`)}
      )
      select installation_id, gone, (select queued from retry) from decided
    `).execute(executor);
    return decided.rows;
  };
  if (!outcomes.some((o) => o.result.statusCode === 410)) {
    await finish(db);
    return;
  }
  await transact(db, async (trx) => {
    const decided = await finish(trx);
    for (const installationId of new Set(decided.filter((d) => d.gone).map((d) => d.installationId))) {
      await disableSubscription(trx, installationId);
    }
  });
}

/**
 * Ends every pending delivery of an installation `failed` (D14 uninstall, D35 410). Deliveries
 * in flight lose their lease token, so their outcome no longer changes the status.
 */
export async function endPendingDeliveries(trx: Db, installationId: string): Promise<void> {
  await trx
    .updateTable('webhookDeliveries')
    .set({ status: 'failed', nextAttemptAt: null, leasedUntil: null, leaseToken: null, updatedAt: new Date() })
    .where('installationId', '=', installationId)
    .where('status', '=', 'pending')
    .execute();
}

/** D35: a 410 disables the installation's subscription and ends its pending deliveries. */
async function disableSubscription(trx: Db, installationId: string): Promise<void> {
  await trx
    .updateTable('installations')
    .set({ webhookDisabledAt: new Date() })
    .where('id', '=', installationId)
    .where('webhookDisabledAt', 'is', null)
    .execute();
  await endPendingDeliveries(trx, installationId);
}

/**
 * A due delivery nobody has taken for this long is queued again. It covers the one gap the
 * lease leaves: a process killed after the queue handed it the job but before it took the
 * leases (of a later batch, when the job names more deliveries than the process has slots),
 * which graphile-worker would free only after 4 hours. Far longer than any queue
 * backlog in normal operation; an extra job for a delivery is harmless (the lease decides).
 */
const STALE_DUE_S = 60;

/**
 * A delivery made due this long ago and still not queued lost its queueing: its process died
 * between the commit and the batch (`queueDeliveries`), or the batch failed. Longer than a
 * batch takes under load, short enough that the delivery is hardly late.
 */
export const UNQUEUED_S = 2;

/** Most deliveries of each kind one sweep queues; the rest wait for the next, a second later. */
const SWEEP_BATCH = 1000;

/**
 * Queues again every delivery whose lease expired (its holder died or stalled), every due
 * delivery left untaken for STALE_DUE_S, and every delivery due for UNQUEUED_S whose job was
 * never queued; one statement, one `add_jobs` call. Row locks make concurrent sweeps by
 * several processes queue each delivery once (the update checks each condition again on the
 * row it locked). Answers how many were queued.
 *
 * Each kind is found through its own partial index (`_leased_`, `_due_`, `_unqueued_`), so a
 * sweep reads the few rows it queues: one condition over all three made PostgreSQL read every
 * pending delivery, every second, in every delivering process (11 ms a run with 3,000 pending).
 * At most SWEEP_BATCH of each kind a run; the rows it changes are read by key (`lockedDeliveries`).
 */
export async function sweepExpiredLeases(db: Db): Promise<number> {
  const stale = sql`now() - make_interval(secs => ${STALE_DUE_S})`;
  const unqueued = sql`now() - make_interval(secs => ${UNQUEUED_S})`;
  // Each kind in the order of its index, at most SWEEP_BATCH a run (the rest a second later):
  // the planner then walks the index from its start, whatever it guesses of the range's size.
  const result = await sql<{ queued: number }>`
    with found as (
      (select event_id, client_id from webhook_deliveries
        where status = 'pending' and leased_until is not null and leased_until < now()
        order by leased_until limit ${SWEEP_BATCH})
      union
      (select event_id, client_id from webhook_deliveries
        where status = 'pending' and leased_until is null and next_attempt_at < ${stale}
        order by next_attempt_at limit ${SWEEP_BATCH})
      union
      (select event_id, client_id from webhook_deliveries
        where status = 'pending' and queued_at is null and updated_at < ${unqueued}
        order by updated_at limit ${SWEEP_BATCH})
    ), swept as (
      update webhook_deliveries d
      set leased_until = null, lease_token = null, next_attempt_at = now(), queued_at = now(), updated_at = now()
      from ${lockedDeliveries(sql`found`)} f
      where d.event_id = f.event_id and d.client_id = f.client_id and f.status = 'pending' and (
        f.leased_until < now()
        or (f.leased_until is null and f.next_attempt_at < ${stale})
        or (f.queued_at is null and f.updated_at < ${unqueued})
      )
      returning d.event_id, d.client_id, d.next_attempt_at
    )
    ${addDeliveryJobs(sql`swept`)}
  `.execute(db);
  return result.rows[0]?.queued ?? 0;
}

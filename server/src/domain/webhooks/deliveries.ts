import { type ApiVersion, isApiVersion, LATEST_API_VERSION, type WebhookTopic } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { webhookSecretOf } from '../identity/apps';
import { addDeliveryJobs, type DeliveryKey } from './enqueue';
import { modeWebhookUrl } from './record';
import { type AttemptResult, delivered, MAX_RETRY_AFTER_S, sendWebhook } from './send';
import type { WebhookSettings } from './settings';

/**
 * The life of one delivery (D32, D35). A job of the queue names a delivery; the process that
 * runs it first takes the delivery's lease (a conditional update, so of several processes
 * exactly one wins), makes the attempt, then in one statement logs it and either ends the
 * delivery or schedules the next attempt and queues its job.
 * A process killed mid-attempt leaves its lease behind; once it expires, `sweepExpiredLeases`
 * (run by every delivering process) makes the delivery due again, and the attempt is made
 * again with the same event id.
 */

/** How long past the attempt's own timeout a lease lasts: room for logging the outcome. */
export const LEASE_MARGIN_MS = 3000;

export function leaseMs(config: Pick<WebhookSettings, 'webhookTimeoutMs'>): number {
  return config.webhookTimeoutMs + LEASE_MARGIN_MS;
}

interface Leased {
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
}

/** Takes the delivery's lease when it is due and nobody holds it; undefined otherwise. */
async function takeLease(db: Db, key: DeliveryKey, token: string, lease: number): Promise<Leased | undefined> {
  const result = await sql<Leased>`
    update webhook_deliveries d
    set leased_until = now() + make_interval(secs => ${lease / 1000}), lease_token = ${token}
    from webhook_events e, apps a, stores s
    where d.event_id = ${key.eventId} and d.client_id = ${key.clientId}
      and d.status = 'pending' and d.next_attempt_at <= now()
      and (d.leased_until is null or d.leased_until < now())
      and e.id = d.event_id and a.client_id = d.client_id and s.id = e.store_id
    returning d.installation_id, d.attempt_count, e.topic, e.body, e.created_at, d.api_version, s.livemode,
      ${modeWebhookUrl} as webhook_url,
      a.webhook_secret_ciphertext, a.previous_webhook_secret_ciphertext, a.previous_webhook_secret_expires_at
  `.execute(db);
  return result.rows[0];
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

/** Runs one job: one attempt of one delivery, if it is still due. */
export async function runDelivery(db: Db, config: WebhookSettings, key: DeliveryKey): Promise<void> {
  const token = crypto.randomUUID();
  const leased = await takeLease(db, key, token, leaseMs(config));
  if (!leased) return;
  const result: AttemptResult = leased.webhookUrl
    ? await sendWebhook({
        url: leased.webhookUrl,
        secrets: signingSecrets(config.secretKey, leased),
        event: {
          id: key.eventId,
          topic: leased.topic,
          createdAt: leased.createdAt,
          body: leased.body,
          apiVersion: renderedIn(leased.apiVersion),
          livemode: leased.livemode,
        },
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivateUrls,
      })
    : {
        attemptedAt: new Date(),
        durationMs: 0,
        statusCode: null,
        error: 'the app has no webhook URL',
        response: null,
        retryAfterS: null,
      };
  await recordOutcome(db, config, key, leased, token, result);
}

async function recordOutcome(
  db: Db,
  config: WebhookSettings,
  key: DeliveryKey,
  leased: Leased,
  token: string,
  result: AttemptResult,
): Promise<void> {
  const attempts = leased.attemptCount + 1;
  const ok = delivered(result);
  const gone = result.statusCode === 410;
  const delay = ok || gone ? null : nextDelaySeconds(config.webhookRetrySchedule, attempts, result.retryAfterS);
  const status = ok ? 'delivered' : delay === null ? 'failed' : 'pending';
  // One statement logs the attempt and, for the lease holder only, decides the delivery. A
  // holder whose lease was swept (or whose delivery an uninstall or a 410 ended) only logs.
  const finish = async (executor: Db) => {
    const updated = await sql<{ installationId: string }>`
      with attempt as (
        insert into webhook_attempts
          (event_id, client_id, attempted_at, duration_ms, status_code, error, response_excerpt)
        values (${key.eventId}, ${key.clientId}, ${result.attemptedAt}, ${result.durationMs}, ${result.statusCode},
          ${result.error}, ${result.response})
      ), decided as (
        update webhook_deliveries
        set status = ${status}, attempt_count = ${attempts}, leased_until = null, lease_token = null, updated_at = now(),
          next_attempt_at = ${delay === null ? sql`null` : sql`now() + make_interval(secs => ${delay})`},
          queued_at = ${status === 'pending' ? sql`now()` : sql`queued_at`}
        where event_id = ${key.eventId} and client_id = ${key.clientId} and lease_token = ${token} and status = 'pending'
        returning event_id, client_id, next_attempt_at, status, installation_id
      ), retry as (
        ${addDeliveryJobs(sql`(select * from decided where status = 'pending')`)}
      )
      select installation_id, (select queued from retry) from decided
    `.execute(executor);
    return updated.rows[0];
  };
  if (!gone) {
    await finish(db);
    return;
  }
  await transact(db, async (trx) => {
    const updated = await finish(trx);
    if (updated) await disableSubscription(trx, updated.installationId);
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
 * lease (graphile-worker would free that job only after 4 hours). Far longer than any queue
 * backlog in normal operation; an extra job for a delivery is harmless (the lease decides).
 */
export const STALE_DUE_S = 60;

/**
 * A delivery made due this long ago and still not queued lost its queueing: its process died
 * between the commit and the batch (`queueDeliveries`), or the batch failed. Longer than a
 * batch takes under load, short enough that the delivery is hardly late.
 */
export const UNQUEUED_S = 2;

/**
 * Queues again every delivery whose lease expired (its holder died or stalled), every due
 * delivery left untaken for STALE_DUE_S, and every delivery due for UNQUEUED_S whose job was
 * never queued; one statement, one `add_jobs` call. Row locks make concurrent sweeps by
 * several processes queue each delivery once. Answers how many were queued.
 */
export async function sweepExpiredLeases(db: Db): Promise<number> {
  const result = await sql<{ queued: number }>`
    with swept as (
      update webhook_deliveries
      set leased_until = null, lease_token = null, next_attempt_at = now(), queued_at = now(), updated_at = now()
      where status = 'pending' and (
        leased_until < now()
        or (leased_until is null and next_attempt_at < now() - make_interval(secs => ${STALE_DUE_S}))
        or (queued_at is null and updated_at < now() - make_interval(secs => ${UNQUEUED_S}))
      )
      returning event_id, client_id, next_attempt_at
    )
    ${addDeliveryJobs(sql`swept`)}
  `.execute(db);
  return result.rows[0]?.queued ?? 0;
}

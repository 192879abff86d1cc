import {
  isApiVersion,
  LATEST_API_VERSION,
  type TAppEvent,
  type TAppEventConnection,
  type TAppEventsQuery,
  type TDeliveryAttempt,
  type TWebhookTestResult,
  WEBHOOK_BODY_SCHEMAS,
  type WebhookBodies,
  type WebhookTopic,
  webhookBodyIn,
} from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { type KeysetPager, keyset } from '../../lib/pager';
import { refuse } from '../../lib/refusal';
import { ownedApp } from '../identity/apps';
import { signingSecrets } from './deliveries';
import { modeWebhookUrl, queueAfterCommit } from './record';
import { type AttemptResult, delivered, sendWebhook } from './send';
import type { WebhookSettings } from './settings';

/**
 * The D34 event log and replay: an app's events with their delivery attempts, redelivery, a
 * sample send, all for the app's owner only: another user's app answers like a missing one.
 */

interface Row {
  eventId: string;
  topic: string;
  storeId: string;
  body: unknown;
  createdAt: Date;
  /** The delivery's keyset position with microseconds (lib/pager.ts). */
  keysetAt: string;
  status: 'pending' | 'delivered' | 'failed';
  nextAttemptAt: Date | null;
  /** The receiver's pin when the event was recorded (D44): the version its body is sent in. */
  apiVersion: string | null;
}

/** The keyset of the event log: the app's deliveries by creation, then event id. */
const EVENTS = keyset('d.created_at', 'd.event_id');

/** The select of an app's events with their deliveries; `where` and `tail` (order, limit) complete it. */
const eventSelect = (where: RawBuilder<unknown>[], tail: RawBuilder<unknown> = sql``) => sql<Row>`
  select d.event_id, e.topic, e.store_id, e.body, e.created_at, ${EVENTS.position} as keyset_at,
    d.status, d.next_attempt_at, d.api_version
  from webhook_deliveries d
  join webhook_events e on e.id = d.event_id
  where ${sql.join(where, sql` and `)}
  ${tail}
`;

/**
 * One page of the app's events, ordered by creation then id (D24 keyset paging, lib/pager.ts:
 * a page costs the same at any depth), optionally only those whose delivery has a given
 * status; its cursors are bound to the app and the status.
 */
export async function listAppEvents(
  db: Db,
  pager: KeysetPager,
  clientId: string,
  ownerUserId: string,
  query: TAppEventsQuery,
): Promise<TAppEventConnection> {
  await ownedApp(db, clientId, ownerUserId);
  const where = [sql`d.client_id = ${clientId}`];
  if (query.status) where.push(sql`d.status = ${query.status}`);
  return pager.page(query, JSON.stringify(['app-events', clientId, query.status ?? null]), {
    rows: async (range) =>
      (await eventSelect([...where, ...EVENTS.bounds(range)], EVENTS.order(range)).execute(db)).rows,
    position: (row) => ({ createdAt: row.keysetAt, id: row.eventId }),
    nodes: async (rows) => {
      const attempts = await attemptsOf(
        db,
        clientId,
        rows.map((r) => r.eventId),
      );
      return rows.map((row) => eventView(row, attempts.get(row.eventId) ?? []));
    },
  });
}

/** One event of the app with its attempts; undefined when the app has no delivery of it. */
async function findAppEvent(db: Db, clientId: string, eventId: string): Promise<TAppEvent | undefined> {
  const result = await eventSelect([sql`d.client_id = ${clientId}`, sql`d.event_id = ${eventId}`]).execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  const attempts = await attemptsOf(db, clientId, [eventId]);
  return eventView(row, attempts.get(eventId) ?? []);
}

async function attemptsOf(db: Db, clientId: string, eventIds: string[]): Promise<Map<string, TDeliveryAttempt[]>> {
  const byEvent = new Map<string, TDeliveryAttempt[]>();
  if (eventIds.length === 0) return byEvent;
  const rows = await db
    .selectFrom('webhookAttempts')
    .selectAll()
    .where('clientId', '=', clientId)
    .where('eventId', 'in', eventIds)
    .orderBy('attemptedAt')
    .orderBy('id')
    .execute();
  for (const row of rows) {
    const list = byEvent.get(row.eventId) ?? [];
    list.push(
      attemptView({
        id: String(row.id),
        attemptedAt: row.attemptedAt,
        durationMs: row.durationMs,
        statusCode: row.statusCode,
        error: row.error,
        response: row.responseExcerpt,
      }),
    );
    byEvent.set(row.eventId, list);
  }
  return byEvent;
}

function attemptView(
  a: Pick<AttemptResult, 'attemptedAt' | 'durationMs' | 'statusCode' | 'error' | 'response'> & { id: string },
): TDeliveryAttempt {
  return {
    id: a.id,
    attemptedAt: a.attemptedAt.toISOString(),
    statusCode: a.statusCode !== null && a.statusCode >= 100 && a.statusCode <= 599 ? a.statusCode : null,
    durationMs: a.durationMs,
    error: a.error === null ? null : a.error.slice(0, 1024),
    response: a.response,
  };
}

function eventView(row: Row, attempts: TDeliveryAttempt[]): TAppEvent {
  const createdAt = row.createdAt.toISOString();
  // The body as the app is sent it: in the version it was pinned to when the event was recorded (D44).
  const body = webhookBodyIn(isApiVersion(row.apiVersion) ? row.apiVersion : LATEST_API_VERSION, row.topic, row.body);
  return {
    id: row.eventId,
    topic: row.topic,
    createdAt,
    storeId: row.storeId,
    body,
    status: row.status,
    nextAttemptAt: row.status === 'pending' && row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
    attempts,
  } as TAppEvent;
}

/**
 * Queues a new attempt of the event now, with the same id and body (D32, D34), whether it was
 * delivered, failed or is still pending; answers the event as it is then.
 */
export async function redeliver(db: Db, clientId: string, ownerUserId: string, eventId: string): Promise<TAppEvent> {
  await ownedApp(db, clientId, ownerUserId);
  await transact(db, async (trx) => {
    const target = await trx
      .selectFrom('webhookDeliveries as d')
      .innerJoin('apps as a', 'a.clientId', 'd.clientId')
      .innerJoin('installations as i', 'i.id', 'd.installationId')
      // D45: the URL of the event's store's mode.
      .innerJoin('stores as s', 's.id', 'i.storeId')
      .select([modeWebhookUrl.as('webhookUrl'), 'i.uninstalledAt', 'i.webhookDisabledAt'])
      // The event's row too: the retention prune (D48) skips an event a redelivery holds, and
      // a redelivery waits for a prune that holds it (then finds it gone).
      .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
      .where('d.clientId', '=', clientId)
      .where('d.eventId', '=', eventId)
      .forUpdate('d')
      .forKeyShare('e')
      .executeTakeFirst();
    if (!target) throw refuse.missing('event not found');
    if (!target.webhookUrl) throw refuse.conflict('the app has no webhook URL');
    if (target.uninstalledAt) throw refuse.conflict("the app is no longer installed on the event's store");
    if (target.webhookDisabledAt) {
      throw refuse.conflict('deliveries are disabled by a 410 answer; a successful test send enables them');
    }
    await trx
      .updateTable('webhookDeliveries')
      .set({ status: 'pending', nextAttemptAt: sql<Date>`now()`, queuedAt: null, updatedAt: new Date() })
      .where('clientId', '=', clientId)
      .where('eventId', '=', eventId)
      .execute();
    queueAfterCommit(trx, eventId, [clientId]);
  });
  return (await findAppEvent(db, clientId, eventId))!;
}

/**
 * Sends one signed sample event of `topic` for a store the app is installed on, at once, and
 * reports the attempt (D34); not retried, not logged. A 2xx enables a subscription a 410 had
 * disabled (D35).
 */
export async function sendTestEvent(
  db: Db,
  config: WebhookSettings,
  clientId: string,
  ownerUserId: string,
  topic: WebhookTopic,
  storeId: string,
): Promise<TWebhookTestResult> {
  await ownedApp(db, clientId, ownerUserId);
  const target = await db
    .selectFrom('apps as a')
    .innerJoin('installations as i', 'i.clientId', 'a.clientId')
    // D45: a test store's sample goes to the test webhook URL, a live store's to the live one.
    .innerJoin('stores as s', 's.id', 'i.storeId')
    .select([
      'i.id as installationId',
      modeWebhookUrl.as('webhookUrl'),
      'a.apiVersion',
      's.livemode',
      'a.webhookSecretCiphertext',
      'a.previousWebhookSecretCiphertext',
      'a.previousWebhookSecretExpiresAt',
    ])
    .where('a.clientId', '=', clientId)
    .where('i.storeId', '=', storeId)
    .where('i.uninstalledAt', 'is', null)
    .executeTakeFirst();
  if (!target) throw refuse.missing('the app is not installed on this store');
  if (!target.webhookUrl) throw refuse.conflict('the app has no webhook URL');
  const id = newId('evt');
  const result = await sendWebhook({
    url: target.webhookUrl,
    secrets: signingSecrets(config.secretKey, target),
    // D44: a test send is rendered in the app's pin of this moment.
    event: {
      id,
      topic,
      createdAt: new Date(),
      body: sampleBody(topic, storeId),
      apiVersion: isApiVersion(target.apiVersion) ? target.apiVersion : LATEST_API_VERSION,
      livemode: target.livemode,
    },
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivateUrls,
  });
  const ok = delivered(result);
  if (ok) {
    await db
      .updateTable('installations')
      .set({ webhookDisabledAt: null })
      .where('id', '=', target.installationId)
      .where('webhookDisabledAt', 'is not', null)
      .execute();
  }
  return { id, topic, storeId, delivered: ok, attempt: attemptView({ ...result, id: newId('att') }) };
}

/** A sample body of each topic, valid against its schema (D34 test send). */
export function sampleBody<T extends WebhookTopic>(topic: T, storeId: string): WebhookBodies[T] {
  const claim = { claimId: 'cl_sample', storeId };
  const protection = {
    orderId: 'or_sample',
    sourceOrderId: 'sample-order-1001',
    storeId,
    policyId: 'po_sample',
    premiumPaid: 2.5,
    currency: 'USD',
  };
  const trackingIds = {
    storeId,
    sourceOrderId: 'sample-order-1001',
    sourceFulfillmentId: 'sample-fulfillment-1',
    trackingNumber: '1Z999AA10123456784',
  };
  const samples: WebhookBodies = {
    'claim/created': {
      ...claim,
      sourceOrderId: 'sample-order-1001',
      claimCategory: 'SHIPPING',
      claimType: 'DAMAGED',
      claimState: 'NEW',
      items: [{ id: 'ci_sample', itemId: 'sample-item-1', quantity: 1, issueType: 'DAMAGED' }],
    },
    'claim/approved': { ...claim, resolutions: [{ type: 'REFUND', itemId: 'sample-item-1', quantity: 1 }] },
    'claim/denied': { ...claim, sourceOrderId: 'sample-order-1001', reason: 'NOT_COVERED' },
    'message/created': {
      ...claim,
      messageId: 'ms_sample',
      senderType: 'customer',
      message: 'This is a sample message.',
    },
    'protection/added': protection,
    'protection/removed': { ...protection, removedAt: new Date().toISOString(), reason: 'CANCELLED' },
    'tracking/updated': {
      ...trackingIds,
      carrier: 'UPS',
      status: 'in_transit',
      subStatus: null,
      previousStatus: 'pre_transit',
      occurredAt: new Date().toISOString(),
      estimatedDeliveryAt: null,
    },
    'tracking/alert': {
      ...trackingIds,
      rule: 'lost',
      action: 'notified',
      reason: 'no carrier scan for 7 days',
      claimId: null,
    },
  };
  return WEBHOOK_BODY_SCHEMAS[topic].parse(samples[topic]) as WebhookBodies[T];
}

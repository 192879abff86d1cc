import { WEBHOOK_BODY_SCHEMAS, type WebhookBodies, type WebhookTopic } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import { type Db, prepared } from '../../db/database';
import { afterCommit } from '../../db/transact';
import { newId } from '../../lib/ids';
import { logger } from '../../lib/request-context';
import { currentTraceparent } from '../../lib/tracing';
import { queueDeliveries } from './enqueue';

interface NewEvent<T extends WebhookTopic> {
  storeId: string;
  topic: T;
  body: WebhookBodies[T];
}

export interface RecordedEvent {
  id: string;
  createdAt: Date;
  /** Client ids of the apps the event will be delivered to (D35 fan-out). */
  subscribers: string[];
}

/**
 * D45: the URL an app receives a store's events at, by the store's mode: a live store's at
 * `webhook_url`, a test store's at `test_webhook_url` only (none set: the event is recorded,
 * not sent). Over `apps a` and `stores s`.
 */
export const modeWebhookUrl = sql<string | null>`(case when s.livemode then a.webhook_url else a.test_webhook_url end)`;

/**
 * The two steps of a statement that record an event (D32, D35): CTE `event` writes it, CTE
 * `fanned` its deliveries, one for every active installation of the store whose app has a
 * webhook URL of the store's mode (D45), subscribes to the topic and is not disabled by a 410.
 * Each delivery keeps the app's pinned API version of this moment, which its body is rendered
 * in on every attempt (D44). `when` names a CTE of the same statement: the event is written
 * only if it has a row (the order write records its event only when it inserted a policy).
 * The body must fit the contract's schema of the topic; one that does not is a bug, and
 * throws (rolling the change back with it). With tracing on, the event keeps the trace of the
 * change (its `traceparent`), which its deliveries' spans join. `last`: the JSON text of the
 * body's last key's value as the statement computes it, written in place of the value the body
 * gives, which is then of the same shape (D57: `claim/created`'s `risk`, computed with the claim).
 */
export function eventSteps<T extends WebhookTopic>(
  event: NewEvent<T>,
  when?: RawBuilder<unknown>,
  last?: RawBuilder<unknown>,
): { id: string; steps: RawBuilder<unknown> } {
  const body = WEBHOOK_BODY_SCHEMAS[event.topic].parse(event.body);
  const id = newId('evt');
  const steps = sql`
    event as (
      insert into webhook_events (id, store_id, topic, body, traceparent)
      select ${id}, ${event.storeId}, ${event.topic}, ${bodyText(body, last)}, ${currentTraceparent()}::text
      ${when ? sql`where exists (select 1 from ${when})` : sql``}
      returning id, created_at
    ), fanned as (
      insert into webhook_deliveries (event_id, client_id, installation_id, created_at, api_version)
      select event.id, i.client_id, i.id, event.created_at, a.api_version
      from event
      cross join installations i
      join apps a on a.client_id = i.client_id
      join stores s on s.id = i.store_id
      where i.store_id = ${event.storeId}
        and i.uninstalled_at is null
        and i.webhook_disabled_at is null
        and ${modeWebhookUrl} is not null
        and ${event.topic} = any (a.webhook_topics)
      returning client_id
    )`;
  return { id, steps };
}

/** The body's text, its last value replaced by the SQL text `last` when one is given. */
function bodyText(body: object, last?: RawBuilder<unknown>): RawBuilder<unknown> | string {
  const text = JSON.stringify(body);
  if (!last) return text;
  const values = Object.values(body);
  const given = `${JSON.stringify(values[values.length - 1])}}`;
  if (values.length === 0 || !text.endsWith(given)) throw new Error('an event body without a last value to replace');
  return sql`(${text.slice(0, -given.length)}::text || ${last} || '}')::json`;
}

/**
 * Once the statement of `eventSteps` has run in `trx`: the deliveries' jobs are queued after
 * the transaction commits (D32), never inside it, so that the change's commit does not wait
 * on the job queue's notification (which serializes commits cluster-wide).
 */
export function queueAfterCommit(trx: Db, eventId: string, subscribers: readonly string[]): void {
  // The link from a request's log lines to the deliveries it caused.
  logger()?.debug({ eventId, deliveries: subscribers.length }, 'webhook event recorded');
  if (subscribers.length === 0) return;
  const keys = subscribers.map((clientId) => ({ eventId, clientId }));
  afterCommit(trx, (db) => queueDeliveries(db, keys));
}

/**
 * Records a webhook event inside the transaction of the change that causes it (D32): a
 * change that rolls back leaves no event, one that commits loses none. Event and deliveries
 * are written in one statement; their jobs are queued after the commit.
 */
export async function recordEvent<T extends WebhookTopic>(trx: Db, event: NewEvent<T>): Promise<RecordedEvent> {
  const { id, steps } = eventSteps(event);
  const result = await prepared(sql<{ clientId: string | null; createdAt: Date }>`
    with ${steps}
    select event.created_at, fanned.client_id from event left join fanned on true
  `).execute(trx);
  const rows = result.rows;
  const subscribers = rows.flatMap((r) => (r.clientId ? [r.clientId] : []));
  queueAfterCommit(trx, id, subscribers);
  return { id, createdAt: rows[0]!.createdAt, subscribers };
}

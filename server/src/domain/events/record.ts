import { WEBHOOK_BODY_SCHEMAS, type WebhookBodies, type WebhookTopic } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { newId } from '../../lib/ids';

export interface NewEvent<T extends WebhookTopic> {
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
 * Records a webhook event inside the transaction of the change that causes it (D32): a
 * change that rolls back leaves no event, one that commits loses none. The body must fit the
 * contract's schema of the topic; one that does not is a bug, and throws (rolling the change
 * back with it). The fan-out is fixed here (D35): one delivery for every active installation
 * of the store whose app has a webhook URL, subscribes to the topic and is not disabled by a
 * 410. Event and deliveries are written in one statement, and a trigger on the deliveries
 * queues their delivery jobs (graphile-worker `add_job`) in the same transaction.
 */
export async function recordEvent<T extends WebhookTopic>(trx: Db, event: NewEvent<T>): Promise<RecordedEvent> {
  const body = WEBHOOK_BODY_SCHEMAS[event.topic].parse(event.body);
  const id = newId('evt');
  const result = await sql<{ clientId: string | null; createdAt: Date }>`
    with event as (
      insert into webhook_events (id, store_id, topic, body)
      values (${id}, ${event.storeId}, ${event.topic}, ${JSON.stringify(body)})
      returning id, created_at
    ), fanned as (
      insert into webhook_deliveries (event_id, client_id, installation_id, created_at)
      select event.id, i.client_id, i.id, event.created_at
      from event
      cross join installations i
      join apps a on a.client_id = i.client_id
      where i.store_id = ${event.storeId}
        and i.uninstalled_at is null
        and i.webhook_disabled_at is null
        and a.webhook_url is not null
        and ${event.topic} = any (a.webhook_topics)
      returning client_id
    )
    select event.created_at, fanned.client_id from event left join fanned on true
  `.execute(trx);
  const rows = result.rows;
  return {
    id,
    createdAt: rows[0]!.createdAt,
    subscribers: rows.flatMap((r) => (r.clientId ? [r.clientId] : [])),
  };
}

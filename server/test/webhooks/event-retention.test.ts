import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventPruner, pruneEventBatch, pruneEvents } from '../../src/domain/webhooks/retention';
import { orderBody } from '../harness/claims';
import { bearer, installedAppWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

type Status = 'pending' | 'delivered' | 'failed';

/**
 * D48 retention: webhook events older than EVENT_RETENTION_DAYS whose deliveries are all
 * final are deleted with their deliveries and attempts, in bounded batches; an event with a
 * pending delivery, a recent event and the business records an event speaks of stay.
 */
describe('webhook event retention (D48)', () => {
  const secret = randomBytes(32);
  let server: TestServer;
  let storeId: string;
  let clientId: string;
  let installationId: string;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({ secretKey: secret });
    const installed = await installedAppWithToken(
      server.db,
      secret,
      server.config.publicBaseUrl,
      'retention',
      ['order:update', 'order:read'],
      { webhookUrl: 'https://hooks.example.com/in', webhookTopics: ['protection/added'] },
    );
    ({ installationId, token } = installed);
    clientId = installed.app.clientId;
    storeId = installed.store.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  /**
   * `count` events of `label`, `ageDays` old (a second apart, in order), each with one
   * delivery of `status` to the installed app (none: no delivery) and two attempts when it is
   * final. Answers their ids.
   */
  async function seed(label: string, count: number, ageDays: number, status: Status | null): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      insert into webhook_events (id, store_id, topic, body, created_at)
      select 'evt_' || ${label} || '_' || n, ${storeId}, 'protection/added', '{}'::json,
        now() - make_interval(days => ${ageDays}) + make_interval(secs => n)
      from generate_series(1, ${count}) n
      returning id
    `.execute(server.db);
    const ids = rows.map((r) => r.id);
    if (status) {
      await sql`
        insert into webhook_deliveries (event_id, client_id, installation_id, status, attempt_count, created_at, queued_at)
        select e.id, ${clientId}, ${installationId}, ${status}, 2, e.created_at, now()
        from webhook_events e where e.id = any (${ids}::text[])
      `.execute(server.db);
      if (status !== 'pending') {
        await sql`
          insert into webhook_attempts (event_id, client_id, attempted_at, duration_ms, status_code)
          select e.id, ${clientId}, e.created_at, 5, code
          from webhook_events e cross join (values (500), (200)) v (code) where e.id = any (${ids}::text[])
        `.execute(server.db);
      }
    }
    return ids;
  }

  const counts = async (ids: string[]) => {
    const { rows } = await sql<{ events: number; deliveries: number; attempts: number }>`
      select
        (select count(*)::int from webhook_events where id = any (${ids}::text[])) as events,
        (select count(*)::int from webhook_deliveries where event_id = any (${ids}::text[])) as deliveries,
        (select count(*)::int from webhook_attempts where event_id = any (${ids}::text[])) as attempts
    `.execute(server.db);
    return rows[0]!;
  };

  it('deletes old events whose deliveries are all final, with their deliveries and attempts', async () => {
    const delivered = await seed('delivered', 5, 40, 'delivered');
    const failed = await seed('failed', 5, 40, 'failed');
    const unsubscribed = await seed('none', 5, 40, null);
    expect(await counts(delivered)).toEqual({ events: 5, deliveries: 5, attempts: 10 });
    const pruned = await pruneEvents(server.db, 30);
    expect(pruned.events).toBe(15);
    for (const ids of [delivered, failed, unsubscribed]) {
      expect(await counts(ids)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    }
  });

  it('keeps an old event with a pending delivery, and a recent event, with all of theirs', async () => {
    const pending = await seed('pending', 3, 40, 'pending');
    // A delivered delivery of another app beside the pending one: the event stays whole.
    const other = await installedAppWithToken(server.db, secret, server.config.publicBaseUrl, 'retention-other', [], {
      webhookUrl: 'https://other.example.com/in',
      webhookTopics: ['protection/added'],
    });
    await sql`
      insert into webhook_deliveries (event_id, client_id, installation_id, status, attempt_count, created_at)
      select e.id, ${other.app.clientId}, ${other.installationId}, 'delivered', 1, e.created_at
      from webhook_events e where e.id = any (${pending}::text[])
    `.execute(server.db);
    const recent = await seed('recent', 3, 29, 'delivered');
    await pruneEvents(server.db, 30);
    expect(await counts(pending)).toEqual({ events: 3, deliveries: 6, attempts: 0 });
    expect(await counts(recent)).toEqual({ events: 3, deliveries: 3, attempts: 6 });
    // With a shorter retention the recent ones go; the pending ones still stay.
    await pruneEvents(server.db, 7);
    expect(await counts(recent)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect((await counts(pending)).events).toBe(3);
  });

  it('never touches the order or its policy', async () => {
    const put = await server.request('/v1/orders/retained-1', {
      method: 'PUT',
      headers: bearer(token),
      json: orderBody({ premiumPaid: 1.5 }),
    });
    expect(put.status).toBe(200);
    const event = await server.db
      .selectFrom('webhookEvents')
      .select('id')
      .where('storeId', '=', storeId)
      .where('topic', '=', 'protection/added')
      // The seeded events are days old; the order's is seconds old.
      .where('createdAt', '>', new Date(Date.now() - 60_000))
      .executeTakeFirstOrThrow();
    await sql`update webhook_deliveries set status = 'delivered' where event_id = ${event.id}`.execute(server.db);
    await sql`update webhook_events set created_at = now() - interval '400 days' where id = ${event.id}`.execute(
      server.db,
    );
    await pruneEvents(server.db, 30);
    expect(await counts([event.id])).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    const read = await fetch(`${server.baseUrl}/v1/orders/retained-1`, { headers: bearer(token) });
    expect(read.status).toBe(200);
    const policies = await server.db
      .selectFrom('protectionPolicies as p')
      .innerJoin('orders as o', 'o.id', 'p.orderId')
      .select('p.id')
      .where('o.storeId', '=', storeId)
      .where('o.sourceOrderId', '=', 'retained-1')
      .execute();
    expect(policies).toHaveLength(1);
  });

  it('deletes at most one batch per statement, and a larger prune over several', async () => {
    const ids = await seed('batched', 25, 60, 'delivered');
    expect(await pruneEventBatch(server.db, 30, 10)).toEqual({ taken: 10, deleted: 10 });
    expect((await counts(ids)).events).toBe(15);
    // Oldest first: the ten taken were the first ten recorded.
    const left = await server.db.selectFrom('webhookEvents').select('id').where('id', '=', ids[0]!).execute();
    expect(left).toEqual([]);
    const took: number[] = [];
    const started = performance.now();
    expect(await pruneEvents(server.db, 30, { batch: 10, onBatch: (ms) => took.push(ms) })).toEqual({
      events: 15,
      batches: 2,
    });
    // Between two batches it rests as long as the first took, leaving the database room.
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * took[0]! + took[1]! - 2);
    expect(await counts(ids)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
  });

  it('skips an event a redelivery holds, without waiting for it', async () => {
    const [held, free] = await seed('held', 2, 40, 'failed');
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      // What `redeliver` holds on the event while it makes a delivery pending again.
      await client.query('select 1 from webhook_events where id = $1 for key share', [held]);
      // It answers while the lock is still held: waiting for it, it would answer only after
      // the commit below, which waits for it.
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise((r) => {
        timer = setTimeout(() => r('waited for the held event'), 30_000);
      });
      expect(await Promise.race([pruneEvents(server.db, 30), waited])).toEqual({ events: 1, batches: 1 });
      clearTimeout(timer);
      await client.query(`update webhook_deliveries set status = 'pending' where event_id = $1`, [held]);
      await client.query('commit');
    } finally {
      await client.end();
    }
    await pruneEvents(server.db, 30);
    expect((await counts([held!])).events).toBe(1);
    expect((await counts([free!])).events).toBe(0);
  });

  it('runs in the delivering process at its interval, and stops between batches', async () => {
    const ids = await seed('timed', 4, 40, 'delivered');
    const outcomes: unknown[] = [];
    const pruner = new EventPruner(server.db, 30, (o) => outcomes.push(o), 50);
    await expect
      .poll(() => counts(ids), { interval: 20 })
      .toEqual({
        events: 0,
        deliveries: 0,
        attempts: 0,
      });
    await pruner.stop();
    expect(outcomes[0]).toEqual({ events: 4, batches: 1 });
  });
});

import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port';
import { createApp, createOwner, installWithToken } from '../harness/fixtures';
import { type ServiceProcess, startServiceProcess } from '../harness/processes';
import { startTestServer, type TestServer } from '../harness/server';
import { type Receiver, startDeliveryProcess, startReceiver } from '../harness/webhooks';

/**
 * D32, delivery jobs queued after commit: a server process that answered an order write (its
 * change, event and delivery committed) and died before its batch queued the delivery's job
 * loses nothing. Another process's sweep queues the delivery, and it arrives.
 */
describe('a process killed between commit and queueing', () => {
  const secretKey = randomBytes(32);
  let server: TestServer;
  let receiver: Receiver;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    server = await startTestServer({ secretKey });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await receiver?.close();
    await server?.close();
  });

  it('has its committed delivery queued by the sweep and delivered', { timeout: 120_000 }, async () => {
    const owner = await createOwner(server.db, 'gap');
    const app = await createApp(server, owner.user.id, {
      webhookUrl: `${receiver.url}/gap`,
      webhookTopics: ['protection/added'],
    });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, ['order:update']);

    const port = await freePort();
    const victim = await startServiceProcess({
      databaseUrl: server.databaseUrl,
      secretKey,
      entry: 'main',
      port,
      env: {
        WEBHOOK_WORKERS: '0',
        PUBLIC_BASE_URL: server.config.publicBaseUrl,
      },
    });
    processes.push(victim);

    // Hold graphile-worker's task table so that the victim's batch, which runs after its
    // commit, waits inside add_jobs: the window in which the process dies.
    const blocker = new pg.Client({ connectionString: server.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table graphile_worker._private_tasks in exclusive mode');
      const put = await fetch(`http://127.0.0.1:${port}/v1/orders/gap-1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sourceOrderNumber: '#1',
          currency: 'USD',
          platformId: 'shopify',
          total: 50,
          premiumPaid: 1.5,
          sourceCreatedAt: '2026-11-01T10:00:00.000Z',
        }),
      });
      expect(put.status).toBe(200);
      // The batch is waiting on the lock: its backend is the victim's, blocked in add_jobs. Found
      // by the lock it waits for, not by its statement's text: a prepared statement run again
      // takes its locks before pg_stat_activity shows it (the backend reads idle, showing the
      // order's insert), as it did on a busy machine.
      const waiting = async () =>
        (
          await blocker.query<{ pid: number }>(
            `select pid from pg_locks where relation = 'graphile_worker._private_tasks'::regclass and not granted`,
          )
        ).rows.map((r) => r.pid);
      // Waited for, however long a busy machine takes to run the batch.
      await expect.poll(waiting, { timeout: 60_000 }).toHaveLength(1);
      await victim.crash();
      // The database ends what the dead process left running, as it does once it notices.
      for (const pid of await waiting()) await blocker.query('select pg_terminate_backend($1)', [pid]);
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }

    const delivery = await sql<{ queuedAt: Date | null; status: string; jobs: number }>`
      select d.queued_at, d.status,
        (select count(*)::int from graphile_worker._private_jobs j where j.payload->>'eventId' = d.event_id) as jobs
      from webhook_deliveries d join webhook_events e on e.id = d.event_id
      where e.store_id = ${owner.store.id} and e.topic = 'protection/added'
    `.execute(server.db);
    // Committed, and never queued.
    expect(delivery.rows).toEqual([{ queuedAt: null, status: 'pending', jobs: 0 }]);

    processes.push(await startDeliveryProcess({ databaseUrl: server.databaseUrl, secretKey }));
    await expect.poll(() => receiver.at('/gap').length, { timeout: 30_000 }).toBe(1);
    const sent = JSON.parse(receiver.at('/gap')[0]!.raw) as { topic: string; body: unknown };
    expect(sent).toMatchObject({ topic: 'protection/added', body: { sourceOrderId: 'gap-1', premiumPaid: 1.5 } });
  });
});

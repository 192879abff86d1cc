import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesWritten } from '../../src/db/committed-batches';
import { transact } from '../../src/db/transact';
import { sweepExpiredLeases, UNQUEUED_S } from '../../src/domain/webhooks/deliveries';
import { recordEvent } from '../../src/domain/webhooks/record';
import { createApp, createOwner, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** Recording an event in the caller's transaction, and its fan-out (D32, D35). */
describe('recordEvent', () => {
  let server: TestServer;
  let owner: Owner;
  let subscribed: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'rec');
    const other = await createOwner(server.db, 'rec-other');
    const hook = { webhookUrl: 'http://127.0.0.1:9/hook', webhookTopics: ['claim/denied' as const] };
    subscribed = (await createApp(server, owner.user.id, hook)).clientId;
    await installWithToken(server, subscribed, owner.store.id, ['order:read']);
    // Not delivered: another topic; no URL; not installed here; uninstalled; disabled by a 410.
    const otherTopic = await createApp(server, owner.user.id, { ...hook, webhookTopics: ['claim/created'] });
    await installWithToken(server, otherTopic.clientId, owner.store.id, ['order:read']);
    const noUrl = await createApp(server, owner.user.id, { webhookTopics: ['claim/denied'] });
    await installWithToken(server, noUrl.clientId, owner.store.id, ['order:read']);
    const elsewhere = await createApp(server, owner.user.id, hook);
    await installWithToken(server, elsewhere.clientId, other.store.id, ['order:read']);
    const gone = await createApp(server, owner.user.id, hook);
    await installWithToken(server, gone.clientId, owner.store.id, ['order:read']);
    await server.db
      .updateTable('installations')
      .set({ uninstalledAt: new Date() })
      .where('clientId', '=', gone.clientId)
      .execute();
    const disabled = await createApp(server, owner.user.id, hook);
    await installWithToken(server, disabled.clientId, owner.store.id, ['order:read']);
    await server.db
      .updateTable('installations')
      .set({ webhookDisabledAt: new Date() })
      .where('clientId', '=', disabled.clientId)
      .execute();
  });
  afterAll(async () => {
    await server.close();
  });

  const denied = () => ({
    storeId: owner.store.id,
    topic: 'claim/denied' as const,
    body: { claimId: 'cl_1', storeId: owner.store.id, sourceOrderId: 'o-1', reason: 'OTHER' as const },
  });

  // A job names one delivery, or several (`deliveries`).
  const jobsOf = async (eventId: string) =>
    (
      await sql<{ n: number }>`
        select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
        where t.identifier = 'webhook_deliver' and (j.payload->>'eventId' = ${eventId}
          or j.payload::jsonb->'deliveries' @> jsonb_build_array(jsonb_build_object('eventId', ${eventId}::text)))
      `.execute(server.db)
    ).rows[0]!.n;

  it('fans out to the installed apps subscribed to the topic, and only to them', async () => {
    const recorded = await transact(server.db, (trx) => recordEvent(trx, denied()));
    expect(recorded.subscribers).toEqual([subscribed]);
    const deliveries = await server.db
      .selectFrom('webhookDeliveries')
      .selectAll()
      .where('eventId', '=', recorded.id)
      .execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ clientId: subscribed, status: 'pending', attemptCount: 0 });
    // The delivery job is queued after the commit, in a batch (D32), and the delivery says so.
    await batchesWritten(server.db);
    expect(await jobsOf(recorded.id)).toBe(1);
    const queued = await server.db
      .selectFrom('webhookDeliveries')
      .select('queuedAt')
      .where('eventId', '=', recorded.id)
      .executeTakeFirstOrThrow();
    expect(queued.queuedAt).toBeInstanceOf(Date);
    const event = await server.db
      .selectFrom('webhookEvents')
      .selectAll()
      .where('id', '=', recorded.id)
      .executeTakeFirstOrThrow();
    expect(event.body).toEqual(denied().body);
  });

  it("refers to its installation and the installation's app with one key, which the database keeps", async () => {
    // One foreign key, (installation, app), locks one row per delivery where a key to each locked two.
    const recorded = await transact(server.db, (trx) => recordEvent(trx, denied()));
    await batchesWritten(server.db);
    const delivery = await server.db
      .selectFrom('webhookDeliveries')
      .select(['installationId', 'clientId'])
      .where('eventId', '=', recorded.id)
      .executeTakeFirstOrThrow();
    const other = await createApp(server, owner.user.id, { webhookUrl: 'http://127.0.0.1:9/hook' });
    const forOtherApp = sql`
      insert into webhook_deliveries (event_id, client_id, installation_id, created_at)
      values (${recorded.id}, ${other.clientId}, ${delivery.installationId}, now())`;
    await expect(forOtherApp.execute(server.db)).rejects.toMatchObject({ code: '23503' });
    // Deleting the installation deletes its deliveries, as deleting an app deletes its installations.
    const doomed = await createApp(server, owner.user.id, {
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookTopics: ['claim/denied'],
    });
    await installWithToken(server, doomed.clientId, owner.store.id, ['order:read']);
    const fanned = await transact(server.db, (trx) => recordEvent(trx, denied()));
    expect(fanned.subscribers).toContain(doomed.clientId);
    await server.db.deleteFrom('apps').where('clientId', '=', doomed.clientId).execute();
    const left = await server.db
      .selectFrom('webhookDeliveries')
      .select('clientId')
      .where('eventId', '=', fanned.id)
      .execute();
    expect(left.map((d) => d.clientId)).toEqual([subscribed]);
  });

  it('records an event with no subscriber at all', async () => {
    const recorded = await server.db
      .transaction()
      .execute((trx) => recordEvent(trx, { ...denied(), topic: 'claim/denied', storeId: owner.store.id }));
    expect(recorded.id).toMatch(/^evt_/);
    const none = await server.db.transaction().execute((trx) =>
      recordEvent(trx, {
        storeId: owner.store.id,
        topic: 'message/created',
        body: { claimId: 'cl_1', storeId: owner.store.id, messageId: 'm1', senderType: 'customer', message: 'hi' },
      }),
    );
    expect(none.subscribers).toEqual([]);
    expect(await server.db.selectFrom('webhookEvents').select('id').where('id', '=', none.id).execute()).toHaveLength(
      1,
    );
  });

  it('leaves nothing behind when the transaction rolls back', async () => {
    let id = '';
    await expect(
      server.db.transaction().execute(async (trx) => {
        id = (await recordEvent(trx, denied())).id;
        throw new Error('change failed');
      }),
    ).rejects.toThrow('change failed');
    expect(await server.db.selectFrom('webhookEvents').select('id').where('id', '=', id).execute()).toEqual([]);
    expect(
      await server.db.selectFrom('webhookDeliveries').select('eventId').where('eventId', '=', id).execute(),
    ).toEqual([]);
    const jobs = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker._private_jobs where payload->>'eventId' = ${id}
    `.execute(server.db);
    expect(jobs.rows[0]!.n).toBe(0);
  });

  it('throws on a body that does not fit the topic, before writing anything', async () => {
    const before = await server.db
      .selectFrom('webhookEvents')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    await expect(
      server.db
        .transaction()
        .execute((trx) => recordEvent(trx, { ...denied(), body: { ...denied().body, reason: 'NOPE' } as never })),
    ).rejects.toThrow();
    const after = await server.db
      .selectFrom('webhookEvents')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('queues no job inside the transaction; the sweep queues a delivery whose queueing was lost', async () => {
    // A transaction not begun by transact() stands for a process that died between its commit
    // and the batch: the delivery row is committed, its job never queued.
    const lost = await server.db.transaction().execute((trx) => recordEvent(trx, denied()));
    await batchesWritten(server.db);
    expect(await jobsOf(lost.id)).toBe(0);
    // Not yet: it may still be in a batch of its process.
    await sweepExpiredLeases(server.db);
    expect(await jobsOf(lost.id)).toBe(0);
    await server.db
      .updateTable('webhookDeliveries')
      .set({ updatedAt: new Date(Date.now() - (UNQUEUED_S + 1) * 1000) })
      .where('eventId', '=', lost.id)
      .execute();
    await Promise.all([sweepExpiredLeases(server.db), sweepExpiredLeases(server.db)]);
    expect(await jobsOf(lost.id)).toBe(1);
  });

  it('sweeps expired leases and long-untaken due deliveries back into the queue, once', async () => {
    const leased = await transact(server.db, (trx) => recordEvent(trx, denied()));
    const untaken = await transact(server.db, (trx) => recordEvent(trx, denied()));
    const fresh = await transact(server.db, (trx) => recordEvent(trx, denied()));
    await batchesWritten(server.db);
    // A holder died mid-attempt; another delivery's job was lost before anyone took it.
    await server.db
      .updateTable('webhookDeliveries')
      .set({ leasedUntil: new Date(Date.now() - 1000), leaseToken: 'dead' })
      .where('eventId', '=', leased.id)
      .execute();
    await server.db
      .updateTable('webhookDeliveries')
      .set({ nextAttemptAt: new Date(Date.now() - 120_000) })
      .where('eventId', '=', untaken.id)
      .execute();
    const before = await Promise.all([leased.id, untaken.id, fresh.id].map(jobsOf));
    await Promise.all([sweepExpiredLeases(server.db), sweepExpiredLeases(server.db)]);
    const after = await Promise.all([leased.id, untaken.id, fresh.id].map(jobsOf));
    expect(after).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
    const swept = await server.db
      .selectFrom('webhookDeliveries')
      .select(['leasedUntil', 'leaseToken', 'nextAttemptAt'])
      .where('eventId', '=', leased.id)
      .executeTakeFirstOrThrow();
    expect(swept).toMatchObject({ leasedUntil: null, leaseToken: null });
    expect(Math.abs(swept.nextAttemptAt!.getTime() - Date.now())).toBeLessThan(10_000);
    expect(await sweepExpiredLeases(server.db)).toBe(0);
  });
});

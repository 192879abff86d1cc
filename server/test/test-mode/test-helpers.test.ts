import { type TWebhookEvent, WEBHOOK_TOPICS, ZWebhookEvent } from '@protection-service/contract';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldRollupsFully } from '../../src/domain/analytics/rollups';
import type { Delivery } from '../../src/job-runner';
import { claimBody, claimEvents, orderBody } from '../harness/claims';
import { answered, bearer, errorOf } from '../harness/fixtures';
import { storeRows } from '../harness/isolation-cases';
import { type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';
import { type TestModeRig, testModeRig } from '../harness/test-mode';
import { answer, type Receiver, signatureOf, startReceiver } from '../harness/webhooks';

/**
 * The test helpers (D45) end to end: a real server, a real delivering runner, a webhook
 * receiver with a live and a test path, and an SMTP server that must hear nothing from a test
 * store. The retry schedule is an hour, so only `deliveries/flush` can bring a retry in time.
 */
const SCOPES = [
  'order:update',
  'order:read',
  'product:update',
  'claim:manage',
  'claim:update',
  'claim:read',
  'store:read',
] as const;

const until = async <T>(probe: () => T | Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> => {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    value = await probe();
  }
  return value;
};

describe('test helpers (D45)', () => {
  let server: TestServer;
  let receiver: Receiver;
  let sink: SmtpSink;
  let runner: Delivery;
  let rig: TestModeRig;
  const events = (path: string) => receiver.at(path).map((r) => JSON.parse(r.raw) as TWebhookEvent);

  beforeAll(async () => {
    server = await startTestServer({ webhookRetrySchedule: [3600, 3600] });
    receiver = await startReceiver();
    sink = await startSmtpSink();
    runner = (await startMailRunner(server, { smtpUrl: sink.url, mailFrom: 'claims@shop.test' })).delivery;
    rig = await testModeRig(server, 'helpers', [...SCOPES], {
      webhookUrl: `${receiver.url}/live`,
      webhookTopics: [...WEBHOOK_TOPICS],
    });
    answered(
      await server
        .api(rig.dashboard)
        .apps.update({ params: { clientId: rig.app.clientId }, body: { testWebhookUrl: `${receiver.url}/test` } }),
      200,
    );
  });
  afterAll(async () => {
    await runner?.stop();
    await receiver?.close();
    await sink?.close();
    await server?.close();
  });

  const testApi = () => server.api(rig.testToken);
  /** An order and a claim on it in the test store; answers the claim id. */
  const testClaim = async (orderId: string) => {
    answered(await testApi().orders.upsert({ params: { sourceOrderId: orderId }, body: orderBody() }), 200);
    const filed = await testApi().claims.file({ params: { sourceOrderId: orderId }, body: claimBody() });
    expect(filed.status).toBe(200);
    return filed.headers.get('location')!.replace('/v1/claims/', '');
  };

  it('drives a claim to APPROVED through the approve move: its event, store credit and e-mails, none of it leaving the test mode', async () => {
    const claimId = await testClaim('tm-approve');
    const moved = answered(
      await testApi().testHelpers.advanceClaim({
        params: { claimId },
        body: { claimState: 'APPROVED', resolutions: [{ type: 'STORE_CREDIT', paidValue: 20 }] },
      }),
      200,
    );
    expect(moved.claimState).toBe('APPROVED');
    // Answered as GET /v1/claims/:id answers it.
    expect(moved).toEqual(answered(await testApi().claims.get({ params: { claimId } }), 200));
    expect(await claimEvents(server.db, 'claim/approved', claimId)).toHaveLength(1);
    // The store credit is issued, and its e-mail is kept, not sent (D42: NOT_SENT).
    const credit = moved.claimStoreCredits;
    expect(credit).toHaveLength(1);
    expect(credit[0]).toMatchObject({ emailStatus: 'NOT_SENT' });

    // Both events reach the test URL only, signed with the app's webhook secret, livemode false.
    const got = await until(
      () => events('/test').filter((e) => 'claimId' in e.body && e.body.claimId === claimId),
      (l) => l.length >= 2,
    );
    // Deliveries of two events run side by side: they arrive in either order (D32).
    expect(got.map((e) => e.topic).sort()).toEqual(['claim/approved', 'claim/created']);
    for (const e of got) expect(ZWebhookEvent.parse(e).livemode).toBe(false);
    for (const r of receiver.at('/test')) {
      expect(r.headers['x-webhook-signature']).toBe(`v1,${signatureOf(rig.app.webhookSecret, r)}`);
    }
    expect(receiver.at('/live')).toHaveLength(0);

    // The e-mails the store would have sent, newest first; the SMTP server heard none of them.
    const mail = answered(await testApi().testHelpers.listMail(), 200).messages;
    expect(mail.map((m) => m.to)).toEqual(['shopper@example.com', 'shopper@example.com', 'shopper@example.com']);
    expect(mail.map((m) => m.createdAt)).toEqual([...mail.map((m) => m.createdAt)].sort().reverse());
    expect(mail.some((m) => m.text.includes(credit[0]!.code))).toBe(true);
    const statuses = await server.db
      .selectFrom('mailMessages')
      .select('status')
      .where('claimId', '=', claimId)
      .execute();
    expect(statuses.map((s) => s.status)).toEqual(['not_sent', 'not_sent', 'not_sent']);
    expect(sink.to('shopper@example.com')).toHaveLength(0);
  });

  it('the same claim on the live store sends its e-mail and its events to the live URL only, livemode true', async () => {
    const live = server.api(rig.liveToken);
    answered(await live.orders.upsert({ params: { sourceOrderId: 'live-1' }, body: orderBody() }), 200);
    const filed = await live.claims.file({
      params: { sourceOrderId: 'live-1' },
      body: claimBody({ email: 'live-shopper@example.com' }),
    });
    expect(filed.status).toBe(200);
    const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
    const got = await until(
      () => events('/live').filter((e) => 'claimId' in e.body && e.body.claimId === claimId),
      (l) => l.length >= 1,
    );
    expect(got.map((e) => [e.topic, e.livemode])).toEqual([['claim/created', true]]);
    expect(events('/test').some((e) => 'claimId' in e.body && e.body.claimId === claimId)).toBe(false);
    expect(
      (
        await until(
          () => sink.to('live-shopper@example.com'),
          (l) => l.length >= 1,
        )
      ).length,
    ).toBe(1);
  });

  it('walks APPROVED → RESOLVED → CLOSED, and answers 409 for a move the claim states forbid, changing nothing', async () => {
    const claimId = await testClaim('tm-walk');
    const to = async (body: Parameters<ReturnType<typeof testApi>['testHelpers']['advanceClaim']>[0]['body']) =>
      testApi().testHelpers.advanceClaim({ params: { claimId }, body });
    answered(await to({ claimState: 'APPROVED', resolutions: [{ type: 'RESHIP' }] }), 200);
    answered(await to({ claimState: 'RESOLVED', note: 'Shipped again' }), 200);
    expect(answered(await to({ claimState: 'CLOSED' }), 200).claimState).toBe('CLOSED');
    expect(await claimEvents(server.db, 'claim/approved', claimId)).toHaveLength(1);

    const before = await storeRows(server.db, rig.testStore.id);
    const refused = await to({ claimState: 'OPEN' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
    const denied = await to({ claimState: 'DENIED', reason: 'OTHER' });
    expect(denied.status).toBe(409);
    expect(await storeRows(server.db, rig.testStore.id)).toEqual(before);
  });

  it('denies through the deny move, and refuses fields of another move with 400', async () => {
    const claimId = await testClaim('tm-deny');
    const denied = answered(
      await testApi().testHelpers.advanceClaim({
        params: { claimId },
        body: { claimState: 'DENIED', reason: 'NOT_COVERED', details: 'Out of policy' },
      }),
      200,
    );
    expect(denied.claimState).toBe('DENIED');
    expect(await claimEvents(server.db, 'claim/denied', claimId)).toHaveLength(1);
    const other = await testClaim('tm-deny-2');
    const res = await server.request(`/v1/test_helpers/claims/${other}/advance`, {
      method: 'POST',
      headers: bearer(rig.testToken),
      json: { claimState: 'OPEN', reason: 'OTHER' },
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('posts a message as the shopper, with its message/created event', async () => {
    const claimId = await testClaim('tm-message');
    answered(
      await testApi().testHelpers.addShopperMessage({ params: { claimId }, body: { message: 'Still waiting' } }),
      200,
    );
    const claim = answered(await testApi().claims.get({ params: { claimId } }), 200);
    expect(claim.claimMessages).toEqual([
      expect.objectContaining({ message: 'Still waiting', senderType: 'customer', authorName: 'shopper@example.com' }),
    ]);
    const got = await until(
      () => events('/test').filter((e) => e.topic === 'message/created' && e.body.claimId === claimId),
      (l) => l.length >= 1,
    );
    expect(got).toHaveLength(1);
    const missing = await testApi().testHelpers.addShopperMessage({
      params: { claimId: 'cl_missing' },
      body: { message: 'x' },
    });
    expect(missing.status).toBe(404);
  });

  it('records an event of any topic, delivered through the outbox and listed in the event log', async () => {
    const { eventId } = answered(
      await testApi().testHelpers.recordEvent({ body: { topic: 'protection/removed' } }),
      201,
    );
    const got = await until(
      () => receiver.at('/test').filter((r) => r.headers['x-webhook-id'] === eventId),
      (l) => l.length >= 1,
    );
    expect(got).toHaveLength(1);
    expect(ZWebhookEvent.parse(JSON.parse(got[0]!.raw))).toMatchObject({ id: eventId, livemode: false });
    expect(got[0]!.headers['x-webhook-signature']).toBe(`v1,${signatureOf(rig.app.webhookSecret, got[0]!)}`);
    const log = answered(
      await server.api(rig.dashboard).apps.listEvents({ params: { clientId: rig.app.clientId }, query: {} }),
      200,
    ).data;
    expect(log.edges.map((e) => e.node.id)).toContain(eventId);
  });

  it('flush makes a pending retry due now: it arrives within a second, not in an hour', async () => {
    receiver.respond('/test', answer(500, 'down'));
    const { eventId } = answered(await testApi().testHelpers.recordEvent({ body: { topic: 'claim/created' } }), 201);
    await until(
      () => receiver.at('/test').filter((r) => r.headers['x-webhook-id'] === eventId),
      (l) => l.length >= 1,
    );
    // The failed attempt is logged and the next one is an hour away.
    const pending = await until(
      () =>
        server.db
          .selectFrom('webhookDeliveries')
          .select(['status', 'nextAttemptAt', 'attemptCount'])
          .where('eventId', '=', eventId)
          .executeTakeFirstOrThrow(),
      (d) => d.attemptCount === 1,
    );
    expect(pending.status).toBe('pending');
    expect(pending.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    receiver.respond('/test', answer(200, 'ok'));
    const flushedAt = Date.now();
    answered(await testApi().testHelpers.flushDeliveries(), 200);
    const retried = await until(
      () => receiver.at('/test').filter((r) => r.headers['x-webhook-id'] === eventId),
      (l) => l.length >= 2,
      1000,
    );
    expect(retried).toHaveLength(2);
    expect(retried[1]!.at - flushedAt).toBeLessThan(1000);
    // The same event, byte for byte (D32).
    expect(retried[1]!.raw).toBe(retried[0]!.raw);
  });

  it("the dashboard's sample send for a test store goes to the test webhook URL, with livemode false", async () => {
    const sent = answered(
      await server.api(rig.dashboard).apps.testWebhook({
        params: { clientId: rig.app.clientId },
        body: { topic: 'claim/denied', storeId: rig.testStore.id },
      }),
      200,
    ).data;
    expect(sent.delivered).toBe(true);
    const got = receiver.at('/test').filter((r) => r.headers['x-webhook-id'] === sent.id);
    expect(got).toHaveLength(1);
    expect(ZWebhookEvent.parse(JSON.parse(got[0]!.raw)).livemode).toBe(false);
    expect(receiver.at('/live').filter((r) => r.headers['x-webhook-id'] === sent.id)).toHaveLength(0);
  });

  it('a test store of an app without a test webhook URL records its events and sends them nowhere', async () => {
    const quiet = await testModeRig(server, 'quiet', [...SCOPES], {
      webhookUrl: `${receiver.url}/quiet-live`,
      webhookTopics: [...WEBHOOK_TOPICS],
    });
    const { eventId } = answered(
      await server.api(quiet.testToken).testHelpers.recordEvent({ body: { topic: 'claim/created' } }),
      201,
    );
    expect(await server.db.selectFrom('webhookEvents').select('id').where('id', '=', eventId).execute()).toHaveLength(
      1,
    );
    expect(
      await server.db.selectFrom('webhookDeliveries').select('eventId').where('eventId', '=', eventId).execute(),
    ).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/quiet-live')).toHaveLength(0);
  });

  it('a live token gets 403 (test stores only) on every helper, and nothing changes', async () => {
    const live = server.api(rig.liveToken);
    const liveStoreId = rig.owner.store.id;
    const testClaimId = await testClaim('tm-live-token');
    // The claims its filing queued for their risk (D57: the same shopper's earlier claims) are
    // computed by the runner's sweep first: "nothing changes" is then what the helpers did.
    await expect
      .poll(
        async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from claim_risk_pending p
              join claims c on c.id = p.claim_id where c.store_id = ${rig.testStore.id}`.execute(server.db)
          ).rows[0]!.n,
      )
      .toBe(0);
    const before = await storeRows(server.db, liveStoreId);
    const beforeTest = await storeRows(server.db, rig.testStore.id);
    const answers = [
      await live.testHelpers.advanceClaim({ params: { claimId: testClaimId }, body: { claimState: 'OPEN' } }),
      await live.testHelpers.addShopperMessage({ params: { claimId: testClaimId }, body: { message: 'x' } }),
      await live.testHelpers.recordEvent({ body: { topic: 'claim/created' } }),
      await live.testHelpers.flushDeliveries(),
      await live.testHelpers.listMail(),
      await live.testHelpers.reset(),
    ];
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        statusCode: 403,
        error: 'Forbidden',
        message: expect.stringMatching(/test stores only/),
      });
    }
    expect(await storeRows(server.db, liveStoreId)).toEqual(before);
    expect(await storeRows(server.db, rig.testStore.id)).toEqual(beforeTest);
  });

  it('reset waits for a fold round in progress, and leaves no rollup of the store behind it (D52)', async () => {
    await testClaim('tm-reset-fold');
    await foldRollupsFully(server.db);
    const days = async () =>
      Number(
        (
          await server.db
            .selectFrom('analyticsOrderDays')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('storeId', '=', rig.testStore.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await days()).toBeGreaterThan(0);
    // A fold round, as foldRound runs it: the fold's row locked, then a day row of the store written.
    const round = new pg.Client({ connectionString: server.databaseUrl });
    await round.connect();
    try {
      const pid = (await round.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      // Begun again, as a real round folds nothing and the next one runs, when its snapshot is
      // older than another round's commit: the server's own folds run beside the test (40001).
      for (;;) {
        await round.query('begin isolation level repeatable read');
        try {
          await round.query('select xid from analytics_fold for update');
          break;
        } catch (err) {
          await round.query('rollback');
          if ((err as { code?: string }).code !== '40001') throw err;
        }
      }
      await round.query(
        `insert into analytics_order_days (store_id, day, currency, orders, protected_orders, premiums)
         select store_id, day - 1000, currency, orders, protected_orders, premiums
         from analytics_order_days where store_id = $1 limit 1`,
        [rig.testStore.id],
      );
      let settled = false;
      const reset = testApi()
        .testHelpers.reset()
        .finally(() => {
          settled = true;
        });
      // The reset waits on the round (or, were it not to, has ended without it).
      await expect
        .poll(
          async () =>
            settled ||
            (
              await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock' and query ilike '%analytics_fold%'
                  and pid <> ${pid}`.execute(server.db)
            ).rows[0]!.n > 0,
        )
        .toBe(true);
      await round.query('commit');
      answered(await reset, 200);
    } finally {
      await round.end();
    }
    expect(await days()).toBe(0);
  });

  it('reset empties the store of orders, claims, products and events, its event log entries included; settings and tokens stay', async () => {
    await testClaim('tm-reset');
    answered(await testApi().products.upsert({ params: { productId: 'tm-prod' }, body: { name: 'Mug' } }), 200);
    const count = async (table: 'orders' | 'claims' | 'products' | 'webhookEvents' | 'mailMessages') =>
      (await server.db.selectFrom(table).select('storeId').where('storeId', '=', rig.testStore.id).execute()).length;
    expect(await count('orders')).toBeGreaterThan(0);
    const liveBefore = await storeRows(server.db, rig.owner.store.id);
    answered(await testApi().testHelpers.reset(), 200);
    for (const table of ['orders', 'claims', 'products', 'webhookEvents', 'mailMessages'] as const) {
      expect(await count(table), table).toBe(0);
    }
    const log = answered(
      await server.api(rig.dashboard).apps.listEvents({ params: { clientId: rig.app.clientId }, query: {} }),
      200,
    ).data;
    expect(log.edges.filter((e) => e.node.storeId === rig.testStore.id)).toEqual([]);
    expect(answered(await testApi().testHelpers.listMail(), 200).messages).toEqual([]);
    // Settings and the token stay; the live store is untouched.
    expect(answered(await testApi().settings.get(), 200).data).toBeDefined();
    expect(await storeRows(server.db, rig.owner.store.id)).toEqual(liveBefore);
  });
});

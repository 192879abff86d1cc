import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVALUATE_TASK } from '../../src/domain/tracking/ingest';
import { DEFAULT_TRACKING_SETTINGS, type TrackingSettings } from '../../src/domain/tracking/rules';
import { evaluatePackageNow } from '../../src/domain/tracking-claims/evaluate';
import type { Delivery } from '../../src/job-runner';
import { type ClaimStore, claimBody, claimStore, orderBody } from '../harness/claims';
import { answered, bearer } from '../harness/fixtures';
import { mailOf, type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';
import { testModeRig } from '../harness/test-mode';
import { type Receiver, startReceiver } from '../harness/webhooks';

const DAY = 86_400_000;
// Shipped two days ago and due in two: the evaluation job the ingest queues (D54), which runs
// as of the clock, finds nothing to do (`shipped` waits for it); each test moves `asOf` past
// the rules itself.
const SHIPPED = new Date(Math.floor(Date.now() / 1000) * 1000 - 2 * DAY);
const ESTIMATED = new Date(SHIPPED.getTime() + 4.3 * DAY);
const at = (days: number) => new Date(SHIPPED.getTime() + days * DAY);

/**
 * D54: the rules evaluated from the database as of a time, on a live store's packages; claims
 * filed exactly once through the one claim statement, every decision recorded with its reason.
 */
describe('tracking rules evaluated from the database (D54)', () => {
  let server: TestServer;
  let s: ClaimStore;
  let sink: SmtpSink;
  let receiver: Receiver;
  let delivery: Delivery;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    sink = await startSmtpSink();
    receiver = await startReceiver();
    ({ delivery } = await startMailRunner(server, { smtpUrl: sink.url, mailFrom: 'claims@shop.test' }));
    s = await claimStore(server, 'tracking');
    await sql`
      update apps set webhook_url = ${`${receiver.url}/hook`}, webhook_topics = array['claim/created', 'tracking/alert']
      where client_id = ${s.clientId}
    `.execute(server.db);
  });
  afterAll(async () => {
    await delivery?.stop();
    await receiver?.close();
    await sink?.close();
    await server?.close();
  });

  async function settings(overrides: Partial<TrackingSettings>) {
    const v = { ...DEFAULT_TRACKING_SETTINGS, ...overrides };
    await sql`
      insert into tracking_settings (store_id, mode, lost_no_movement_days, lost_after_estimated_days, delayed_enabled,
        delayed_after_estimated_days, claim_window_days, resolution_requested)
      values (${s.owner.store.id}, ${v.mode}, ${v.lostNoMovementDays}, ${v.lostAfterEstimatedDays}, ${v.delayedEnabled},
        ${v.delayedAfterEstimatedDays}, ${v.claimWindowDays}, ${v.resolutionRequested})
      on conflict (store_id) do update set mode = excluded.mode, lost_no_movement_days = excluded.lost_no_movement_days,
        lost_after_estimated_days = excluded.lost_after_estimated_days, delayed_enabled = excluded.delayed_enabled,
        delayed_after_estimated_days = excluded.delayed_after_estimated_days,
        claim_window_days = excluded.claim_window_days, resolution_requested = excluded.resolution_requested
    `.execute(server.db);
  }

  /**
   * An order (2 mugs, protected unless `policy: false`) with fulfillment f-1 shipping them, and
   * its package with one carrier scan at SHIPPED (or only `pre_transit` when `scanned: false`).
   */
  async function shipped(opts: { policy?: boolean; scanned?: boolean; email?: string } = {}) {
    const sourceOrderId = `o-trk-${++n}`;
    const trackingNumber = `1Z${n}`;
    const email = opts.email ?? `shopper-${n}@example.com`;
    await s.putOrder(sourceOrderId, {
      ...(opts.policy === false ? {} : { premiumPaid: 2.5 }),
      customerEmail: email,
      lineItems: [{ sourceItemId: 'mug', quantity: 2 }],
    });
    // The fulfillment PUT is a way in (D54): its status, dated by `updatedAt`, is the package's first event.
    const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/f-1`, {
      method: 'PUT',
      headers: bearer(s.token),
      json: {
        fulfillmentStatus: opts.scanned === false ? 'CONFIRMED' : 'IN_TRANSIT',
        sourceItemIds: [{ sourceItemId: 'mug', quantity: 2 }],
        trackingNumber: [trackingNumber],
        updatedAt: SHIPPED.toISOString(),
      },
    });
    expect(res.status).toBe(200);
    const pkg = await sql<{ id: string }>`
      update tracking_packages p set estimated_delivery_at = ${ESTIMATED}, carrier = 'ups'
      from orders o
      where o.id = p.order_id and o.store_id = ${s.owner.store.id} and o.source_order_id = ${sourceOrderId}
        and p.tracking_number = ${trackingNumber}
      returning p.id
    `.execute(server.db);
    const packageId = pkg.rows[0]!.id;
    await evaluationRan(packageId);
    return { sourceOrderId, trackingNumber, packageId, email };
  }

  /**
   * Waits for the evaluation the ingest queued for the package (D54) to have run, as of the
   * clock: left queued, it may run between a test's own evaluations at moved times, and its
   * decision (nothing fired yet) would be the package's last one they compare with.
   */
  async function evaluationRan(packageId: string) {
    await expect
      .poll(
        async () =>
          (
            await sql<{ n: number }>`
              select count(*)::int as n from graphile_worker._private_jobs j
              join graphile_worker._private_tasks t on t.id = j.task_id
              where t.identifier = ${EVALUATE_TASK} and j.payload->>'packageId' = ${packageId}
            `.execute(server.db)
          ).rows[0]!.n,
        { timeout: 30_000, interval: 50 },
      )
      .toBe(0);
  }

  const claimsOf = async (sourceOrderId: string) =>
    (
      await sql<{
        id: string;
        claimFiledFrom: string;
        externalSource: string;
        claimType: string;
        resolutionRequested: string;
        claimDescription: string;
        authorEmail: string;
      }>`
        select id, claim_filed_from, external_source, claim_type, resolution_requested, claim_description, author_email
        from claims where store_id = ${s.owner.store.id} and source_order_id = ${sourceOrderId} order by created_at
      `.execute(server.db)
    ).rows;
  const alertsOf = async (trackingNumber: string) =>
    (
      await sql<{ body: Record<string, unknown> }>`
        select body from webhook_events where topic = 'tracking/alert' and body->>'trackingNumber' = ${trackingNumber}
        order by created_at
      `.execute(server.db)
    ).rows.map((r) => r.body);
  /** The decisions of the evaluations a test ran, as of days ahead (not the job's, as of the clock). */
  const decisionsOf = async (packageId: string) =>
    (
      await sql<{ rule: string | null; action: string; reason: string; claimId: string | null; asOf: Date }>`
        select rule, action, reason, claim_id, as_of from tracking_decisions
        where package_id = ${packageId} and as_of > now() + interval '1 hour'
        order by id
      `.execute(server.db)
    ).rows;

  it('file mode: one claim with the evidence, claim/created delivered, the shopper e-mailed, the alert and the decision', async () => {
    await settings({ mode: 'file' });
    const p = await shipped();
    const decision = await evaluatePackageNow(server.db, p.packageId, at(8), 'changed');
    expect(decision).toMatchObject({ rule: 'lost', action: 'filed', trackingNumber: p.trackingNumber });
    const [claim, ...more] = await claimsOf(p.sourceOrderId);
    expect(more).toEqual([]);
    expect(claim).toMatchObject({
      claimFiledFrom: 'INTERNAL',
      externalSource: 'tracking',
      claimType: 'LOST_IN_TRANSIT',
      resolutionRequested: 'REFUND',
      authorEmail: p.email,
    });
    expect(claim!.claimDescription).toContain(`rule lost: no carrier scan for 8 days since ${SHIPPED.toISOString()}`);
    expect(claim!.claimDescription).toContain(`Tracking number ${p.trackingNumber} (ups)`);
    expect(claim!.claimDescription).toContain(`estimated delivery ${ESTIMATED.toISOString()}`);
    expect(decision!.claimId).toBe(claim!.id);
    const items = await sql<{ itemId: string; quantity: number; issueType: string; sourceFulfillmentId: string }>`
      select item_id, quantity, issue_type, source_fulfillment_id from claim_items where claim_id = ${claim!.id}
    `.execute(server.db);
    expect(items.rows).toEqual([{ itemId: 'mug', quantity: 2, issueType: 'MISSING_ITEM', sourceFulfillmentId: 'f-1' }]);
    const pkg = await sql<{
      claimId: string;
    }>`select claim_id from tracking_packages where id = ${p.packageId}`.execute(server.db);
    expect(pkg.rows[0]!.claimId).toBe(claim!.id);
    expect(await decisionsOf(p.packageId)).toEqual([
      expect.objectContaining({ rule: 'lost', action: 'filed', claimId: claim!.id, asOf: at(8) }),
    ]);
    expect(await alertsOf(p.trackingNumber)).toEqual([
      {
        storeId: s.owner.store.id,
        sourceOrderId: p.sourceOrderId,
        sourceFulfillmentId: 'f-1',
        trackingNumber: p.trackingNumber,
        rule: 'lost',
        action: 'filed',
        reason: decision!.reason,
        claimId: claim!.id,
      },
    ]);
    // Delivered for real: the app's receiver gets claim/created and the alert, the shopper the e-mail (D42).
    await expect
      .poll(
        () =>
          receiver
            .at('/hook')
            .filter((r) => r.raw.includes(claim!.id))
            .map((r) => r.headers['x-webhook-topic'])
            .sort(),
        { timeout: 15_000, interval: 100 },
      )
      .toEqual(['claim/created', 'tracking/alert']);
    const created = receiver.at('/hook').find((r) => r.headers['x-webhook-topic'] === 'claim/created')!;
    expect(JSON.parse(created.raw).body).toMatchObject({ claimId: claim!.id, claimType: 'LOST_IN_TRANSIT' });
    await expect.poll(() => sink.to(p.email).length, { timeout: 15_000, interval: 100 }).toBe(1);
    expect((await mailOf(server, claim!.id)).map((m) => m.kind)).toEqual(['claim_filed']);
  });

  it('files exactly one claim when many evaluations of a package run at once', async () => {
    await settings({ mode: 'file' });
    const p = await shipped();
    const decisions = await Promise.all(
      Array.from({ length: 11 }, () => evaluatePackageNow(server.db, p.packageId, at(9), 'always')),
    );
    const claims = await claimsOf(p.sourceOrderId);
    expect(claims).toHaveLength(1);
    expect(decisions.filter((d) => d!.action === 'filed')).toHaveLength(1);
    expect(decisions.every((d) => d!.claimId === claims[0]!.id)).toBe(true);
    // The others found the claim and said so; the same rule again is no escalation.
    expect(decisions.filter((d) => d!.action === 'skipped')).toHaveLength(10);
    expect(await alertsOf(p.trackingNumber)).toHaveLength(1);
  });

  it("files none for a package a shopper's claim already names", async () => {
    await settings({ mode: 'file' });
    const p = await shipped();
    const shopperClaim = await s.fileId(
      p.sourceOrderId,
      claimBody({
        fulfillmentIssues: [{ sourceFulfillmentId: 'f-1', issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
      }),
    );
    const decision = await evaluatePackageNow(server.db, p.packageId, at(8), 'changed');
    expect(decision).toMatchObject({
      rule: 'lost',
      action: 'skipped',
      reason: `the shopper's claim ${shopperClaim} already names the package`,
      claimId: shopperClaim,
    });
    expect(await claimsOf(p.sourceOrderId)).toHaveLength(1);
    expect(await alertsOf(p.trackingNumber)).toEqual([]);
  });

  it('escalates a graver rule on a package that has its claim, and never files a second', async () => {
    await settings({ mode: 'file', delayedEnabled: true, lostAfterEstimatedDays: 5, lostNoMovementDays: 30 });
    const p = await shipped();
    const delayedAt = new Date(ESTIMATED.getTime() + 1.5 * DAY);
    const filed = await evaluatePackageNow(server.db, p.packageId, delayedAt, 'changed');
    expect(filed).toMatchObject({ rule: 'delayed', action: 'filed' });
    expect((await claimsOf(p.sourceOrderId))[0]!.claimType).toBe('DELAYED');
    const lostAt = new Date(ESTIMATED.getTime() + 6 * DAY);
    const escalated = await evaluatePackageNow(server.db, p.packageId, lostAt, 'changed');
    expect(escalated).toMatchObject({ rule: 'lost', action: 'escalated', claimId: filed!.claimId });
    expect(escalated!.reason).toContain(`the package already has its claim ${filed!.claimId}`);
    // The same outcome again is not written again (nor alerted) by the job and the sweep.
    const again = await evaluatePackageNow(server.db, p.packageId, new Date(lostAt.getTime() + DAY), 'changed');
    expect(again).toMatchObject({ action: 'escalated', recorded: false });
    expect(await claimsOf(p.sourceOrderId)).toHaveLength(1);
    expect((await alertsOf(p.trackingNumber)).map((a) => a.action)).toEqual(['filed', 'escalated']);
    expect((await decisionsOf(p.packageId)).map((d) => d.action)).toEqual(['filed', 'escalated']);
  });

  it('the job the ingest queues evaluates a package as of the clock, within moments of its event', async () => {
    await settings({ mode: 'notify' });
    const sourceOrderId = `o-trk-job-${++n}`;
    await s.putOrder(sourceOrderId, { premiumPaid: 2.5, lineItems: [{ sourceItemId: 'mug', quantity: 1 }] });
    const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/f-1`, {
      method: 'PUT',
      headers: bearer(s.token),
      json: {
        fulfillmentStatus: 'IN_TRANSIT',
        trackingNumber: [`JOB${n}`],
        updatedAt: new Date(Date.now() - 10 * DAY).toISOString(),
      },
    });
    expect(res.status).toBe(200);
    await expect
      .poll(async () => (await alertsOf(`JOB${n}`)).map((a) => [a.rule, a.action]), { timeout: 15_000, interval: 100 })
      .toEqual([['lost', 'notified']]);
  });

  it('notify mode alerts and files nothing; off decides nothing', async () => {
    await settings({ mode: 'notify' });
    const p = await shipped();
    expect(await evaluatePackageNow(server.db, p.packageId, at(8), 'changed')).toMatchObject({
      rule: 'lost',
      action: 'notified',
      claimId: null,
    });
    expect(await claimsOf(p.sourceOrderId)).toEqual([]);
    expect(await alertsOf(p.trackingNumber)).toEqual([expect.objectContaining({ action: 'notified', claimId: null })]);

    await settings({ mode: 'off' });
    expect(await evaluatePackageNow(server.db, p.packageId, at(8), 'changed')).toMatchObject({
      rule: null,
      action: 'skipped',
      reason: 'tracking rules are off for the store',
    });
    expect(await claimsOf(p.sourceOrderId)).toEqual([]);
    expect(await alertsOf(p.trackingNumber)).toHaveLength(1);
  });

  it.each([
    ['outside the claim window', {}, at(50), 'outside the claim window: shipped 50 days ago'],
    ['no carrier scan', { scanned: false }, at(8), 'no carrier scan seen, so the package never shipped'],
    ['no active policy', { policy: false }, at(8), 'the order has no active protection policy'],
  ])('skips, saying why: %s', async (_name, opts, asOf, reason) => {
    await settings({ mode: 'file' });
    const p = await shipped(opts);
    const decision = await evaluatePackageNow(server.db, p.packageId, asOf, 'changed');
    expect(decision).toMatchObject({ rule: 'lost', action: 'skipped', claimId: null });
    expect(decision!.reason).toContain(reason);
    expect(await claimsOf(p.sourceOrderId)).toEqual([]);
    expect((await decisionsOf(p.packageId)).map((d) => d.reason)).toEqual([decision!.reason]);
  });

  it('skips when everything on the fulfillment is already claimed (D39)', async () => {
    await settings({ mode: 'file' });
    const p = await shipped();
    await s.fileId(
      p.sourceOrderId,
      claimBody({
        fulfillmentIssues: [
          { sourceFulfillmentId: 'f-other', issues: [{ issueType: 'DAMAGED', sourceItemId: 'mug', quantity: 2 }] },
        ],
      }),
    );
    const decision = await evaluatePackageNow(server.db, p.packageId, at(8), 'changed');
    expect(decision).toMatchObject({ rule: 'lost', action: 'skipped' });
    expect(decision!.reason).toContain('nothing left to claim on the fulfillment');
    expect(await claimsOf(p.sourceOrderId)).toHaveLength(1);
  });
});

/** D54, D45: the evaluate helper on a test store, with events injected by the events helper. */
describe('the tracking evaluate helper (D54, D45)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
  });
  afterAll(() => server?.close());

  it('runs the rules as of a moved time: the claim in the To-do queue, with its event and its e-mail', async () => {
    const t = await testModeRig(server, 'trk-eval', ['order:read', 'order:update', 'claim:read', 'claim:manage']);
    const api = server.api(t.testToken);
    answered(
      await api.orders.upsert({
        params: { sourceOrderId: 'e-1' },
        body: {
          ...orderBody({ premiumPaid: 2.5, customerEmail: 'ann@example.com' }),
          lineItems: [{ sourceItemId: 'mug', quantity: 1 }],
        },
      }),
      200,
    );
    answered(
      await api.orders.upsertFulfillment({
        params: { sourceOrderId: 'e-1', sourceFulfillmentId: 'f-1' },
        body: { fulfillmentStatus: 'FULFILLED', trackingNumber: ['STALL-1'] },
      }),
      200,
    );
    answered(
      await api.testHelpers.addTrackingEvents({
        body: {
          sourceOrderId: 'e-1',
          sourceFulfillmentId: 'f-1',
          trackingNumber: 'STALL-1',
          events: [{ occurredAt: '2027-01-01T08:00:00Z', status: 'in_transit' }],
        },
      }),
      200,
    );
    await sql`
      insert into tracking_settings (store_id, mode, lost_no_movement_days, lost_after_estimated_days, delayed_enabled,
        delayed_after_estimated_days, claim_window_days, resolution_requested)
      values (${t.testStore.id}, 'file', 7, 2, false, 1, 45, 'REFUND')
    `.execute(server.db);
    const early = answered(await api.testHelpers.evaluateTracking({ body: { asOf: '2027-01-03T00:00:00Z' } }), 200);
    expect(early.decisions).toEqual([
      expect.objectContaining({ trackingNumber: 'STALL-1', rule: null, action: 'skipped', claimId: null }),
    ]);
    const late = answered(await api.testHelpers.evaluateTracking({ body: { asOf: '2027-01-09T00:00:00Z' } }), 200);
    expect(late.decisions).toEqual([
      expect.objectContaining({
        trackingNumber: 'STALL-1',
        asOf: '2027-01-09T00:00:00.000Z',
        rule: 'lost',
        action: 'filed',
        claimId: expect.stringMatching(/^clm_/),
      }),
    ]);
    const claimId = late.decisions[0]!.claimId!;
    const queue = answered(await api.claims.list({ query: { queue: 'to_do' } }), 200);
    expect(queue.edges.map((e) => e.node.id)).toEqual([claimId]);
    const mail = answered(await api.testHelpers.listMail(), 200).messages;
    expect(mail).toEqual([
      expect.objectContaining({ to: 'ann@example.com', subject: 'We received your claim for order #1001' }),
    ]);
    const events = await sql<{ topic: string }>`
      select topic from webhook_events where store_id = ${t.testStore.id} and topic in ('claim/created', 'tracking/alert')
      order by topic
    `.execute(server.db);
    expect(events.rows.map((e) => e.topic)).toEqual(['claim/created', 'tracking/alert']);
    // Asked again, the rules answer and record it; no second claim.
    const again = answered(await api.testHelpers.evaluateTracking({ body: { asOf: '2027-01-10T00:00:00Z' } }), 200);
    expect(again.decisions).toEqual([expect.objectContaining({ action: 'skipped', claimId })]);
  });
});

/**
 * D54 at the database: whatever order and duplication a package's deliveries arrive in, it ends
 * in the same state with the same number of `tracking/updated` events, and the rules file at
 * most one claim for it.
 */
describe('deliveries in any order and duplication (D54)', () => {
  let server: TestServer;
  let api: ReturnType<TestServer['api']>;
  let storeId: string;
  let n = 0;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const t = await testModeRig(server, 'trk-prop', ['order:read', 'order:update']);
    api = server.api(t.testToken);
    storeId = t.testStore.id;
    await sql`
      insert into tracking_settings (store_id, mode, lost_no_movement_days, lost_after_estimated_days, delayed_enabled,
        delayed_after_estimated_days, claim_window_days, resolution_requested)
      values (${storeId}, 'file', 7, 2, false, 1, 45, 'REFUND')
    `.execute(server.db);
  });
  afterAll(() => server?.close());

  // Every provider's delivery carries the package's whole history (D54): each one here is the
  // four events in some order, delivered one or more times.
  const history = [
    { occurredAt: '2027-01-01T08:00:00Z', status: 'pre_transit' as const },
    { occurredAt: '2027-01-02T08:00:00Z', status: 'in_transit' as const },
    { occurredAt: '2027-01-03T08:00:00Z', status: 'in_transit' as const, subStatus: 'arrived_at_hub' },
    { occurredAt: '2027-01-04T08:00:00Z', status: 'exception' as const, subStatus: 'weather' },
  ];

  async function run(deliveries: number[][]) {
    const sourceOrderId = `p-${++n}`;
    answered(
      await api.orders.upsert({
        params: { sourceOrderId },
        body: { ...orderBody({ premiumPaid: 2.5 }), lineItems: [{ sourceItemId: 'mug', quantity: 1 }] },
      }),
      200,
    );
    answered(
      await api.orders.upsertFulfillment({
        params: { sourceOrderId, sourceFulfillmentId: 'f-1' },
        body: { fulfillmentStatus: 'FULFILLED', trackingNumber: [`PROP-${n}`] },
      }),
      200,
    );
    for (const order of deliveries) {
      const events = order.map((i) => history[i]!);
      const body = { sourceOrderId, sourceFulfillmentId: 'f-1', trackingNumber: `PROP-${n}`, events };
      answered(await api.testHelpers.addTrackingEvents({ body }), 200);
    }
    await api.testHelpers.evaluateTracking({ body: { asOf: '2027-01-20T00:00:00Z' } });
    const read = await sql<{ status: string; subStatus: string | null; updates: number; claims: number }>`
      select p.status, p.sub_status,
        (select count(*)::int from webhook_events e where e.topic = 'tracking/updated'
          and e.body->>'trackingNumber' = p.tracking_number and e.store_id = p.store_id) as updates,
        (select count(*)::int from claims c where c.store_id = p.store_id and c.source_order_id = ${sourceOrderId}) as claims
      from tracking_packages p where p.store_id = ${storeId} and p.tracking_number = ${`PROP-${n}`}
    `.execute(server.db);
    return read.rows[0]!;
  }

  it('gives one state, one count of tracking/updated and at most one claim', async () => {
    const expected = await run([[0, 1, 2, 3]]);
    expect(expected).toMatchObject({ status: 'exception', subStatus: 'weather', claims: 1 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4 }), { minLength: 1, maxLength: 3 }),
        async (deliveries) => {
          expect(await run(deliveries)).toEqual(expected);
        },
      ),
      { numRuns: 8 },
    );
  });
});

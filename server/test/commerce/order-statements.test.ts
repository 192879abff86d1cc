import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesWritten } from '../../src/db/committed-batches';
import { currentRequest } from '../../src/lib/request-context';
import { bearer, createApp, createOwner, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * What an order write costs the database: a new protected order is one statement, without a
 * transaction (order, line items, policy, event, delivery; D18, D19, D32), and its delivery's
 * job is queued after it in a separate batch statement, never inside the write.
 */
describe('order write statements', () => {
  let server: TestServer;
  let token: string;
  // Each statement with the request it ran for (none for the app's background loops).
  let queries: { sql: string; requestId: string | undefined }[] = [];

  beforeAll(async () => {
    server = await startTestServer(
      {},
      {
        onQuery: (q) => queries.push({ sql: q.replace(/\s+/g, ' ').trim(), requestId: currentRequest()?.requestId }),
        rateLimits: { token: 1e9 },
      },
    );
    const owner = await createOwner(server.db, 'stmts');
    const app = await createApp(server, owner.user.id, {
      requestedScopes: ['order:update'],
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookTopics: ['protection/added', 'protection/removed'],
    });
    token = (await installWithToken(server, app.clientId, owner.store.id, ['order:update'])).accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  const order = {
    sourceOrderNumber: '#1',
    currency: 'USD',
    platformId: 'shopify',
    total: 80,
    premiumPaid: 2,
    sourceCreatedAt: '2026-11-01T10:00:00.000Z',
    lineItems: [{ sourceItemId: 'li-1', quantity: 2, price: 40 }],
  };
  const put = async (id: string, body: unknown) => {
    queries = [];
    const res = await server.request(`/v1/orders/${id}`, { method: 'PUT', headers: bearer(token), json: body });
    expect(res.status).toBe(200);
    await batchesWritten(server.db);
    // The statements this write caused: its own, and the batch it started after its commit,
    // which runs in its context. Not the app's loops (the rate limiter's and usage flushes,
    // the revocation and store-change feeds, D44's pins), which run outside any request and
    // on a busy machine fall inside a write; nor the limiter's shared count (D4), which a
    // request awaits when its copy is a flush old.
    const requestId = res.headers.get('x-request-id');
    return queries.filter((q) => q.requestId === requestId && !/\brate_limit_counters\b/.test(q.sql)).map((q) => q.sql);
  };

  it('writes a new protected order in one statement, then queues its delivery in another', async () => {
    const ran = await put('new-1', order);
    expect(ran).toHaveLength(2);
    expect(ran[0]).toMatch(/^\/\* prepared \*\/ with o as \( insert into orders/);
    expect(ran[0]).toContain('insert into protection_policies');
    expect(ran[0]).toContain('insert into webhook_deliveries');
    expect(ran[1]).toContain('graphile_worker.add_jobs');
    const jobs = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker._private_jobs j
      join webhook_deliveries d on j.payload->>'eventId' = d.event_id
      join webhook_events e on e.id = d.event_id
      where e.body->>'sourceOrderId' = 'new-1'
    `.execute(server.db);
    expect(jobs.rows[0]!.n).toBe(1);
  });

  it('takes the transaction for an order that exists, and records nothing when nothing changed', async () => {
    await put('again-1', order);
    const ran = await put('again-1', order);
    expect(ran[0]).toMatch(/^\/\* prepared \*\/ with o as \( insert into orders/);
    expect(ran.slice(1, 2)).toEqual(['begin']);
    expect(ran.at(-1)).toBe('commit');
    expect(ran.some((q) => q.includes('webhook_events') && !q.includes('with o as ( insert into orders'))).toBe(false);
    expect(ran.some((q) => q.includes('add_jobs'))).toBe(false);
  });

  // Migration 20261201700000: each table's amounts are checked by one `least(...) >= 0`.
  it('refuses a negative amount in the database, as each column check did, and lets nulls pass', async () => {
    await put('checked-1', order);
    const ids = await sql<{ orderId: string; policyId: string }>`
      select o.id as "orderId", p.id as "policyId" from orders o join protection_policies p on p.order_id = o.id
      where o.source_order_id = 'checked-1'`.execute(server.db);
    const { orderId, policyId } = ids.rows[0]!;
    const refused = async (statement: ReturnType<typeof sql>) =>
      expect(statement.execute(server.db)).rejects.toMatchObject({ code: '23514' });
    for (const column of [
      'premium_paid',
      'total',
      'discount_total',
      'shipping_cost',
      'tax',
      'subtotal',
      'shipping_cost_tax',
    ])
      await refused(sql`update orders set ${sql.ref(column)} = -0.01 where id = ${orderId}`);
    for (const column of ['quantity', 'price'])
      await refused(sql`update order_line_items set ${sql.ref(column)} = -1 where order_id = ${orderId}`);
    for (const column of [
      'premium_paid',
      'customer_amount',
      'brand_amount',
      'insured_amount',
      'premium_discounted_amount',
    ])
      await refused(sql`update protection_policies set ${sql.ref(column)} = -0.01 where id = ${policyId}`);
    await sql`update orders set discount_total = null, tax = null, shipping_cost = 0 where id = ${orderId}`.execute(
      server.db,
    );
    await sql`update order_line_items set price = null where order_id = ${orderId}`.execute(server.db);
  });
});

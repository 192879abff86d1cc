import { ZAnalyticsSummary } from '@protection-service/contract';
import { createClient } from '@protection-service/sdk';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_TEST_SCOPES, type ClaimStore, claimStore } from '../harness/claims';
import { answered, bearer, createTestStoreOf, errorOf, installWithToken } from '../harness/fixtures';
import { dataOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

const SCOPES = [...CLAIM_TEST_SCOPES, 'analytics:read' as const];
const DAY = '2026-03-02'; // a Monday

/**
 * D52, over a fixture computed by hand. On 2026-03-02 (UTC) the store has six orders: four
 * protected (USD 2.50, 1.25 and 0.99, EUR 3.10) and two not (one USD, one EUR). Three claims
 * are filed that day at 10:00: two approved (first decision after 2 h and 4 h; a refund of
 * USD 10.10 and a store credit of USD 5) and one denied after 10 h. So: attach rate 4/6,
 * premiums USD 4.74 and EUR 3.10, claim rate 3/4, approval rate 2/3, median 4 hours.
 */
describe('store analytics (D52)', () => {
  let server: TestServer;
  let s: ClaimStore;
  let other: ClaimStore;

  const summary = (store: ClaimStore, from: string, to: string) => store.api.analytics.summary({ query: { from, to } });
  /** Sets a claim's filing time and its first decision's time, as if they had happened then. */
  const backdate = async (claimId: string, filedAt: string, hoursToDecision: number) => {
    await sql`update claims set created_at = ${filedAt}::timestamptz where id = ${claimId}`.execute(server.db);
    await sql`update claim_state_changes set created_at = ${filedAt}::timestamptz + make_interval(hours => ${hoursToDecision})
      where claim_id = ${claimId}`.execute(server.db);
    await sql`update claim_resolutions set created_at = ${filedAt}::timestamptz + make_interval(hours => ${hoursToDecision})
      where claim_id = ${claimId}`.execute(server.db);
  };

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'analytics', SCOPES);
    other = await claimStore(server, 'analytics-other', SCOPES);
    const at = `${DAY}T09:00:00Z`;
    await s.putOrder('o1', { sourceCreatedAt: at, premiumPaid: 2.5 });
    await s.putOrder('o2', { sourceCreatedAt: at, premiumPaid: 1.25 });
    await s.putOrder('o3', { sourceCreatedAt: at, premiumPaid: 0.99 });
    await s.putOrder('o4', { sourceCreatedAt: at, premiumPaid: 3.1, currency: 'EUR' });
    await s.putOrder('o5', { sourceCreatedAt: at });
    await s.putOrder('o6', { sourceCreatedAt: `${DAY}T23:59:59Z`, currency: 'EUR' });
    const filed = `${DAY}T10:00:00Z`;
    const c1 = await s.fileId('o1');
    answered(
      await s.api.claims.approve({
        params: { claimId: c1 },
        body: { resolutions: [{ type: 'REFUND', paidValue: 10.1 }] },
      }),
      200,
    );
    await backdate(c1, filed, 2);
    const c2 = await s.fileId('o2');
    answered(
      await s.api.claims.approve({
        params: { claimId: c2 },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 5 }] },
      }),
      200,
    );
    await backdate(c2, filed, 4);
    const c3 = await s.fileId('o4');
    answered(await s.api.claims.deny({ params: { claimId: c3 }, body: { reason: 'NOT_COVERED' } }), 200);
    await backdate(c3, filed, 10);
    // Another store's order and claim on the same day: never counted for the first.
    await other.putOrder('o1', { sourceCreatedAt: at, premiumPaid: 7 });
    await backdate(await other.fileId('o1'), filed, 1);
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers the hand-computed figures, each currency on its own', async () => {
    const data = answered(await summary(s, DAY, DAY), 200).data;
    expect(data).toMatchObject({
      from: DAY,
      to: DAY,
      orders: 6,
      protectedOrders: 4,
      attachRate: 0.6667,
      premiums: [
        { currency: 'EUR', amount: '3.10' },
        { currency: 'USD', amount: '4.74' },
      ],
      claims: 3,
      claimRate: 0.75,
      approvalRate: 0.6667,
      medianHoursToDecision: 4,
      paidOut: [
        { resolutionType: 'REFUND', currency: 'USD', amount: '10.10' },
        { resolutionType: 'STORE_CREDIT', currency: 'USD', amount: '5.00' },
      ],
      topIssueTypes: [{ issueType: 'DAMAGED', claims: 3 }],
    });
  });

  it("counts only the store's own data; the other store sees its one order and claim", async () => {
    const data = answered(await summary(other, DAY, DAY), 200).data;
    expect(data).toMatchObject({ orders: 1, protectedOrders: 1, attachRate: 1, claims: 1, claimRate: 1 });
    expect(data.premiums).toEqual([{ currency: 'USD', amount: '7.00' }]);
    expect(data.approvalRate).toBeNull();
  });

  it('answers zeros and null rates for an empty period, not an error', async () => {
    const data = answered(await summary(s, '2025-01-01', '2025-01-31'), 200).data;
    expect(data).toEqual({
      from: '2025-01-01',
      to: '2025-01-31',
      orders: 0,
      protectedOrders: 0,
      attachRate: null,
      premiums: [],
      claims: 0,
      claimRate: null,
      approvalRate: null,
      medianHoursToDecision: null,
      paidOut: [],
      topIssueTypes: [],
      topProducts: [],
      topCarriers: [],
    });
  });

  it('answers the same figures in the older dated version (D44: the routes are in every version)', async () => {
    const old = createClient({ baseUrl: server.baseUrl, accessToken: s.token, retry: false, apiVersion: '2025-01-01' });
    const query = { from: DAY, to: DAY };
    expect(answered(await old.analytics.summary({ query }), 200).data).toEqual(
      answered(await summary(s, DAY, DAY), 200).data,
    );
    const series = answered(await old.analytics.series({ query: { ...query, interval: 'day' } }), 200).data;
    expect(series.points).toHaveLength(1);
  });

  it('takes at most 366 days, both included; more answers 400 saying so', async () => {
    answered(await summary(s, '2026-01-01', '2027-01-01'), 200);
    const res = await s.get('/v1/analytics/summary?from=2026-01-01&to=2027-01-02');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/366/);
    const series = await s.get('/v1/analytics/series?from=2026-01-01&to=2027-01-02&interval=day');
    expect(series.status).toBe(400);
    for (const q of ['from=2026-03-02&to=2026-03-01', 'from=2026-3-2&to=2026-03-02', 'to=2026-03-02', 'from=x&to=y']) {
      expect((await s.get(`/v1/analytics/summary?${q}`)).status, q).toBe(400);
    }
    expect((await s.get('/v1/analytics/series?from=2026-03-01&to=2026-03-02&interval=year')).status).toBe(400);
  });

  it('answers every day of a series, empty ones 0', async () => {
    const data = answered(
      await s.api.analytics.series({ query: { from: '2026-03-01', to: '2026-03-03', interval: 'day' } }),
      200,
    ).data;
    expect(data).toEqual({
      interval: 'day',
      points: [
        { start: '2026-03-01', orders: 0, protectedOrders: 0, claims: 0 },
        { start: '2026-03-02', orders: 6, protectedOrders: 4, claims: 3 },
        { start: '2026-03-03', orders: 0, protectedOrders: 0, claims: 0 },
      ],
    });
  });

  it('starts weeks on Monday and months on the 1st, counting only days inside the period', async () => {
    const weeks = answered(
      await s.api.analytics.series({ query: { from: '2026-03-01', to: '2026-03-10', interval: 'week' } }),
      200,
    ).data;
    expect(weeks.points.map((p) => [p.start, p.orders])).toEqual([
      ['2026-02-23', 0],
      ['2026-03-02', 6],
      ['2026-03-09', 0],
    ]);
    const months = answered(
      await s.api.analytics.series({ query: { from: '2026-03-03', to: '2026-04-02', interval: 'month' } }),
      200,
    ).data;
    expect(months.points).toEqual([
      { start: '2026-03-01', orders: 0, protectedOrders: 0, claims: 0 },
      { start: '2026-04-01', orders: 0, protectedOrders: 0, claims: 0 },
    ]);
  });

  it("a test token reads its test store's data only (D45)", async () => {
    const test = await createTestStoreOf(server, s.owner.user.id, s.clientId);
    const { accessToken } = await installWithToken(server, s.clientId, test.id, SCOPES);
    const put = await server.request('/v1/orders/t1', {
      method: 'PUT',
      headers: bearer(accessToken),
      json: {
        sourceOrderNumber: '#1',
        currency: 'USD',
        platformId: 'shopify',
        total: 10,
        sourceCreatedAt: `${DAY}T08:00:00Z`,
      },
    });
    expect(put.status).toBe(200);
    const res = await server.request(`/v1/analytics/summary?from=${DAY}&to=${DAY}`, { headers: bearer(accessToken) });
    expect(res.status).toBe(200);
    expect(await dataOf(res, ZAnalyticsSummary)).toMatchObject({
      orders: 1,
      claims: 0,
    });
    expect(answered(await summary(s, DAY, DAY), 200).data.orders).toBe(6);
  });

  it('refuses a token without analytics:read with 403', async () => {
    const { accessToken } = await installWithToken(server, other.clientId, other.owner.store.id, CLAIM_TEST_SCOPES);
    for (const path of [
      `/v1/analytics/summary?from=${DAY}&to=${DAY}`,
      `/v1/analytics/series?from=${DAY}&to=${DAY}&interval=day`,
    ]) {
      expect((await server.request(path, { headers: bearer(accessToken) })).status, path).toBe(403);
    }
  });
  it('lists the top products, named, and carriers: a claim once per name, however many of its items name it', async () => {
    const storeId = s.owner.store.id;
    const claims = (
      await sql<{ id: string; orderId: string }>`
        select id, order_id from claims where store_id = ${storeId} order by id collate "C"`.execute(server.db)
    ).rows;
    expect(claims).toHaveLength(3);
    await sql`insert into products (store_id, product_id, name) values (${storeId}, 'top-mug', 'Blue mug')`.execute(
      server.db,
    );
    for (const [n, c] of claims.entries()) {
      await sql`insert into fulfillments (order_id, source_fulfillment_id, fulfillment_status, tracking_company)
        values (${c.orderId}, 'top-f', 'SUCCESS', ${n === 0 ? 'DHL' : 'UPS'})`.execute(server.db);
      // Two items each: the mug in both of the first claim's, the mug and a cup in the others'.
      await sql`insert into claim_items (id, claim_id, position, quantity, issue_type, source_product_id, source_fulfillment_id)
        select 'cli_top_' || ${n} || '_' || k, ${c.id}, 100 + k, 1, 'DAMAGED',
          case when k = 0 or ${n} = 0 then 'top-mug' else 'top-cup' end, 'top-f'
        from generate_series(0, 1) k`.execute(server.db);
    }
    const data = answered(await summary(s, DAY, DAY), 200).data;
    const mine = (name: string) => name.startsWith('top-');
    expect(data.topProducts.filter((p) => mine(p.sourceProductId))).toEqual([
      { sourceProductId: 'top-mug', name: 'Blue mug', claims: 3 },
      { sourceProductId: 'top-cup', name: null, claims: 2 },
    ]);
    expect(data.topCarriers).toEqual([
      { carrier: 'UPS', claims: 2 },
      { carrier: 'DHL', claims: 1 },
    ]);
    expect(data.topIssueTypes).toEqual([{ issueType: 'DAMAGED', claims: 3 }]);
  });
});

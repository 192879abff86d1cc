import { SCOPES, type Scope, ZInsuranceQuote } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/src/index';
import { orderBody } from '../harness/claims';
import { answered, bearer, createApp, createOwner, errorOf, installWithToken, type Owner } from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

const DAY = '2026-03-02';
const VERSIONS = ['2025-01-01', '2026-12-01', '2027-01-15'] as const;

/**
 * D55's results per cohort, over a fixture counted by hand. On DAY the store has: three
 * orders with the merchant's offer (two selected and protected at USD 2.50, one declined,
 * one of the three shown preselected), two with cohort "green" of the app (one selected, EUR
 * order protected at 2.50 EUR, shown preselected; one declined), one with another app's cohort
 * "blue", one with no offer at all; and one merchant offer the day after (outside a one-day
 * period) and one on a deleted order (never counted).
 */
describe('offer results per cohort (D55)', () => {
  let server: TestServer;
  let owner: Owner;
  let clientId: string;
  let otherClientId: string;
  let token: string;
  let otherAppToken: string;
  let contextId: string;
  let otherContextId: string;
  const ALL = [...SCOPES] as Scope[];

  const offerOf = async (headers: Record<string, string> = {}) => {
    const res = await server.request(`/v1/quote/insurance?storeId=${owner.store.id}&subtotal=125`, { headers });
    return (await jsonOf(res, ZInsuranceQuote)).offer!.token;
  };
  const put = async (
    sourceOrderId: string,
    order: object,
    offer?: { token: string; selected: boolean; pre: boolean },
  ) => {
    const protectionOffer = offer && {
      token: offer.token,
      selected: offer.selected,
      preselected: offer.pre,
      decidedAt: `${DAY}T08:00:00Z`,
    };
    const res = await server.request(`/v1/orders/${sourceOrderId}`, {
      method: 'PUT',
      headers: bearer(token),
      json: { ...orderBody({ sourceCreatedAt: `${DAY}T09:00:00Z` }), ...order, ...(offer ? { protectionOffer } : {}) },
    });
    expect(res.status, sourceOrderId).toBe(200);
  };

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'offer-results');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: ALL })).clientId;
    otherClientId = (await createApp(server, owner.user.id, { requestedScopes: ALL })).clientId;
    token = (await installWithToken(server, clientId, owner.store.id, ALL)).accessToken;
    otherAppToken = (await installWithToken(server, otherClientId, owner.store.id, ALL)).accessToken;
    contextId = answered(await server.api(token).settings.createContext({ body: { name: 'A' } }), 201).data.id;
    otherContextId = answered(await server.api(otherAppToken).settings.createContext({ body: { name: 'B' } }), 201).data
      .id;
    for (const [tok, ctx, key] of [
      [token, contextId, 'green'],
      [otherAppToken, otherContextId, 'blue'],
    ] as const) {
      const body = { variantKey: key, type: 'CART' as const, config: {} };
      answered(await server.api(tok).cohorts.createWidget({ params: { contextId: ctx }, body }), 201);
    }
    const merchant = await offerOf();
    const green = await offerOf({ 'x-svc-partner-app-id': clientId, 'x-svc-partner-variant': 'green' });
    const blue = await offerOf({ 'x-svc-partner-app-id': otherClientId, 'x-svc-partner-variant': 'blue' });
    await put('m1', { premiumPaid: 2.5 }, { token: merchant, selected: true, pre: true });
    await put('m2', { premiumPaid: 2.5 }, { token: merchant, selected: true, pre: false });
    await put('m3', {}, { token: merchant, selected: false, pre: false });
    await put('g1', { premiumPaid: 2.5, currency: 'EUR' }, { token: green, selected: true, pre: true });
    await put('g2', {}, { token: green, selected: false, pre: false });
    await put('b1', { premiumPaid: 2.5 }, { token: blue, selected: true, pre: false });
    await put('none', { premiumPaid: 2.5 });
    await put('later', { sourceCreatedAt: '2026-03-03T00:00:00Z' }, { token: merchant, selected: false, pre: false });
    await put('gone', { premiumPaid: 2.5 }, { token: merchant, selected: true, pre: false });
    answered(await server.api(token).orders.remove({ params: { sourceOrderId: 'gone' } }), 200);
  });
  afterAll(async () => {
    await server.close();
  });

  const merchantRow = {
    source: 'merchant',
    partnerApplicationId: null,
    partnerVariantKey: null,
    offered: 3,
    selected: 2,
    selectRate: 0.6667,
    preselectedShare: 0.3333,
    premiums: [{ currency: 'USD', amount: '5.00' }],
  };
  const greenRow = {
    source: 'partner',
    partnerApplicationId: '',
    partnerVariantKey: 'green',
    offered: 2,
    selected: 1,
    selectRate: 0.5,
    preselectedShare: 0.5,
    premiums: [{ currency: 'EUR', amount: '2.50' }],
  };

  it("answers the store's offers per source, counted by D52's rules", async () => {
    const rows = answered(await server.api(token).analytics.offers({ query: { from: DAY, to: DAY } }), 200).data;
    const blueRow = {
      ...greenRow,
      partnerApplicationId: otherClientId,
      partnerVariantKey: 'blue',
      offered: 1,
      selectRate: 1,
      preselectedShare: 0,
      premiums: [{ currency: 'USD', amount: '2.50' }],
    };
    // The merchant's source first, then the apps by code point (the service's order on any collation).
    const byApp = (a: { partnerApplicationId: string | null }, b: { partnerApplicationId: string | null }) =>
      a.partnerApplicationId === b.partnerApplicationId
        ? 0
        : (a.partnerApplicationId ?? '') < (b.partnerApplicationId ?? '')
          ? -1
          : 1;
    const expected = [merchantRow, { ...greenRow, partnerApplicationId: clientId }, blueRow].sort(byApp);
    expect(rows).toEqual(expected);
    const twoDays = answered(await server.api(token).analytics.offers({ query: { from: DAY, to: '2026-03-03' } }), 200);
    expect(twoDays.data.find((r) => r.source === 'merchant')).toMatchObject({ offered: 4, selected: 2 });
    const empty = answered(
      await server.api(token).analytics.offers({ query: { from: '2025-01-01', to: '2025-01-02' } }),
      200,
    );
    expect(empty.data).toEqual([]);
  });

  it("answers a partner its own cohorts only, and another app's context as missing (404)", async () => {
    const query = { from: DAY, to: DAY };
    const own = answered(await server.api(token).analytics.offerResults({ params: { contextId }, query }), 200);
    expect(own.data).toEqual([{ ...greenRow, partnerApplicationId: clientId }]);
    const foreign = await server.api(token).analytics.offerResults({ params: { contextId: otherContextId }, query });
    expect(foreign.status).toBe(404);
  });

  it('refuses a bad period (400), no token (401) and the wrong scope (403), in the D2 shape', async () => {
    const long = await server.request('/v1/analytics/offers?from=2026-01-01&to=2027-01-02', { headers: bearer(token) });
    expect(long.status).toBe(400);
    expect((await errorOf(long)).message).toMatch(/366/);
    const backwards = await server.request(
      `/v2/settings/context/${contextId}/offer-results?from=${DAY}&to=2026-03-01`,
      {
        headers: bearer(token),
      },
    );
    expect(backwards.status).toBe(400);
    expect((await server.request(`/v1/analytics/offers?from=${DAY}&to=${DAY}`)).status).toBe(401);
    const narrow = (await installWithToken(server, clientId, owner.store.id, ['order:read'])).accessToken;
    const denied = await server.request(`/v1/analytics/offers?from=${DAY}&to=${DAY}`, { headers: bearer(narrow) });
    expect(denied.status).toBe(403);
    const deniedPartner = await server.request(
      `/v2/settings/context/${contextId}/offer-results?from=${DAY}&to=${DAY}`,
      {
        headers: bearer(narrow),
      },
    );
    expect(deniedPartner.status).toBe(403);
    // Back to every scope for the tests that follow.
    await installWithToken(server, clientId, owner.store.id, ALL);
  });

  it('answers the same in every dated version', async () => {
    const query = { from: DAY, to: DAY };
    for (const apiVersion of VERSIONS) {
      const client = createClient({ baseUrl: server.baseUrl, accessToken: token, retry: false, apiVersion });
      const offers = answered(await client.analytics.offers({ query }), 200).data;
      expect(offers, apiVersion).toHaveLength(3);
      // D44: 2025-01-01 answers a /v2 route unwrapped.
      const answer: unknown = answered(await client.analytics.offerResults({ params: { contextId }, query }), 200);
      const mine = (apiVersion === '2025-01-01' ? answer : (answer as { data: unknown }).data) as {
        partnerVariantKey: string;
      }[];
      expect(
        mine.map((r) => r.partnerVariantKey),
        apiVersion,
      ).toEqual(['green']);
    }
  });

  it('counts from the order offers index, with no trigger on the orders table', async () => {
    const triggers = await sql<{ tgname: string }>`
      select tgname from pg_trigger where tgrelid = 'order_offers'::regclass and not tgisinternal`.execute(server.db);
    expect(triggers.rows).toEqual([]);
    const index = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where tablename = 'order_offers' and indexname = 'order_offers_store_placed_idx'`.execute(
      server.db,
    );
    expect(index.rows[0]!.indexdef).toMatch(/\(store_id, placed_at\)/);
  });
});

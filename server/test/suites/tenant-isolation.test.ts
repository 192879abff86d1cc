import { contract, isRouteMeta, SCOPES, type Scope } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createApp, createOwner, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D7 tenant isolation, shared by every token route that names a resource by id: another
 * store's id answers exactly what a missing id answers (status, body, and every header but the
 * request id and the clock-driven ones), and the owner's data is left as it was.
 *
 * A route joins by adding one entry to ISOLATION_CASES: `seed` makes the resources in the
 * owner's store through the API, `call` names them (`id` leaves an id as seeded for the
 * foreign call, and turns it into one that names nothing for the missing call; ids the service
 * generated come from what `seed` answers). Every token route with an id in its path must
 * have an entry (last test).
 */
interface Api {
  send(method: string, path: string, json?: unknown): Promise<Response>;
}
interface IsolationCase {
  route: AppRoute;
  scopes: Scope[];
  /** Makes the owner's resources; may answer ids the service generated, for `call`. */
  seed(api: Api): Promise<Record<string, string>>;
  call(
    id: (seeded: string) => string,
    seeded: Record<string, string>,
  ): { params: Record<string, string>; body?: unknown };
}

const ORDER = {
  sourceOrderNumber: '#9',
  currency: 'EUR',
  platformId: 'api',
  total: 50,
  premiumPaid: 2,
  sourceCreatedAt: '2026-03-01T00:00:00Z',
  // Enough units for every case's claim on the one item (D39).
  lineItems: [{ sourceItemId: 'iso-item', quantity: 100 }],
};
const seedOrder = async (api: Api) => {
  await api.send('PUT', '/v1/orders/iso-order', ORDER);
  await api.send('PUT', '/v1/orders/iso-order/fulfillments/iso-ful', { fulfillmentStatus: 'IN_TRANSIT' });
  return {};
};
const seedProducts = async (api: Api) => {
  await api.send('PUT', '/v2/products/iso-prod', { name: 'Iso' });
  await api.send('POST', '/v2/products/iso-prod/children', { productId: 'iso-child', name: 'Child' });
  await api.send('POST', '/v2/products/iso-prod/children', {
    productId: 'iso-bundle',
    name: 'Bundle',
    bundleProductIds: ['iso-child'],
  });
  return {};
};

/** A claim filed in the owner's store against `iso-order`; its id comes from the Location header. */
const seedClaim = async (api: Api) => {
  await seedOrder(api);
  const res = await api.send('POST', '/v1/claims/iso-order', CLAIM);
  return { claimId: res.headers.get('location')!.replace('/v1/claims/', '') };
};
const CLAIM = {
  email: 'iso@example.com',
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'iso-item' }] }],
  resolution: { desiredMethod: 'RESHIP' },
};
const claimCase = (route: AppRoute, body?: unknown): IsolationCase => ({
  route,
  scopes: ['claim:manage'],
  seed: seedClaim,
  call: (id, seeded) => ({ params: { claimId: id(seeded.claimId!) }, body }),
});

/**
 * The owner app's partner context with one cohort price set and widget config (D27, D28),
 * made once and reused: a second context of the same (store, app) would be refused.
 */
const seedCohorts = async (api: Api) => {
  const dataOf = async <T>(res: Promise<Response>) => ((await (await res).json()) as { data: T }).data;
  const contexts = await dataOf<{ id: string }[]>(api.send('GET', '/v2/settings/context'));
  const contextId =
    contexts[0]?.id ?? (await dataOf<{ id: string }>(api.send('POST', '/v2/settings/context', { name: 'Iso' }))).id;
  const base = `/v2/settings/context/${contextId}`;
  const sets = await dataOf<{ id: string }[]>(api.send('GET', `${base}/pricing`));
  const priceSetId =
    sets[0]?.id ??
    (
      await dataOf<{ id: string }>(
        api.send('POST', `${base}/pricing`, { variantKey: 'iso', type: 'SHIPPING', rules: [] }),
      )
    ).id;
  const widgets = await dataOf<{ id: string }[]>(api.send('GET', `${base}/widgets`));
  const widgetConfigId =
    widgets[0]?.id ??
    (await dataOf<{ id: string }>(api.send('POST', `${base}/widgets`, { variantKey: 'iso', type: 'CART' }))).id;
  return { contextId, priceSetId, widgetConfigId };
};
const cohortCase = (route: AppRoute, body?: unknown): IsolationCase => ({
  route,
  scopes: [...SCOPES],
  seed: seedCohorts,
  call: (id, seeded) => ({
    params: {
      contextId: id(seeded.contextId!),
      priceSetId: id(seeded.priceSetId!),
      widgetConfigId: id(seeded.widgetConfigId!),
    },
    body,
  }),
});

const ISOLATION_CASES: IsolationCase[] = [
  // Orders and fulfillments (D18-D20).
  {
    route: contract.orders.get,
    scopes: ['order:read'],
    seed: seedOrder,
    call: (id) => ({ params: { sourceOrderId: id('iso-order') } }),
  },
  {
    route: contract.orders.upsert,
    scopes: ['order:update'],
    seed: seedOrder,
    call: (id) => ({
      params: { sourceOrderId: 'iso-new' },
      body: { ...ORDER, originalSourceOrderId: id('iso-order') },
    }),
  },
  {
    route: contract.orders.remove,
    scopes: ['order:update'],
    seed: seedOrder,
    call: (id) => ({ params: { sourceOrderId: id('iso-order') } }),
  },
  {
    route: contract.orders.listFulfillments,
    scopes: ['order:read'],
    seed: seedOrder,
    call: (id) => ({ params: { sourceOrderId: id('iso-order') } }),
  },
  {
    route: contract.orders.upsertFulfillment,
    scopes: ['order:update'],
    seed: seedOrder,
    call: (id) => ({
      params: { sourceOrderId: id('iso-order'), sourceFulfillmentId: 'iso-ful' },
      body: { fulfillmentStatus: 'DELIVERED', sourceItemIds: [{ sourceItemId: 'iso-item', quantity: 1 }] },
    }),
  },
  {
    route: contract.orders.cancelFulfillment,
    scopes: ['order:update'],
    seed: seedOrder,
    call: (id) => ({ params: { sourceOrderId: id('iso-order'), sourceFulfillmentId: id('iso-ful') } }),
  },
  // Products (D21).
  {
    route: contract.products.get,
    scopes: ['product:read'],
    seed: seedProducts,
    call: (id) => ({ params: { productId: id('iso-prod') } }),
  },
  {
    route: contract.products.upsert,
    scopes: ['product:update'],
    seed: seedProducts,
    // Without a name a PUT only updates: a foreign product is as absent as a missing one.
    call: (id) => ({ params: { productId: id('iso-prod') }, body: { sku: 'stolen' } }),
  },
  {
    route: contract.products.remove,
    scopes: ['product:update'],
    seed: seedProducts,
    call: (id) => ({ params: { productId: id('iso-prod') } }),
  },
  {
    route: contract.products.addChild,
    scopes: ['product:update'],
    seed: seedProducts,
    call: (id) => ({ params: { productId: id('iso-prod') }, body: { productId: 'iso-new-child', name: 'New' } }),
  },
  {
    route: contract.products.removeChild,
    scopes: ['product:update'],
    seed: seedProducts,
    call: (id) => ({ params: { productId: id('iso-prod'), childId: id('iso-child') } }),
  },
  {
    route: contract.products.removeFromBundle,
    scopes: ['product:update'],
    seed: seedProducts,
    call: (id) => ({ params: { productId: id('iso-bundle') }, body: { productIds: ['iso-child'] } }),
  },
  // Merchant pricing rule sets and widget configs (spec): ids generated per store.
  {
    route: contract.pricing.update,
    scopes: ['pricing:shipping-insurance:update'],
    seed: async (api) => {
      const res = await api.send('GET', '/v2/pricing/rules');
      const { data } = (await res.json()) as { data: { id: string; type: string }[] };
      return { ruleSetId: data.find((r) => r.type === 'SHIPPING')!.id };
    },
    call: (id, seeded) => ({ params: { ruleSetId: id(seeded.ruleSetId!) }, body: { automaticallyAddToCart: true } }),
  },
  // Claims (D22-D26).
  {
    route: contract.orders.listClaims,
    scopes: ['claim:read'],
    seed: seedClaim,
    call: (id) => ({ params: { sourceOrderId: id('iso-order') } }),
  },
  {
    route: contract.claims.file,
    scopes: ['claim:update'],
    seed: seedOrder,
    call: (id) => ({ params: { sourceOrderId: id('iso-order') }, body: CLAIM }),
  },
  claimCase(contract.claims.get),
  claimCase(contract.claims.postMessage, { message: 'Mine now', senderType: 'brand' }),
  claimCase(contract.claims.approve, { resolutions: [{ type: 'STORE_CREDIT', paidValue: 50 }] }),
  claimCase(contract.claims.deny, { reason: 'OTHER' }),
  claimCase(contract.claims.transition, { claimState: 'OPEN' }),
  {
    route: contract.widgets.update,
    scopes: ['widget:cart:update'],
    seed: async (api) => {
      const res = await api.send('GET', '/v2/widget/config');
      const { data } = (await res.json()) as { data: { id: string; type: string }[] };
      return { widgetConfigId: data.find((w) => w.type === 'CART')!.id };
    },
    call: (id, seeded) => ({ params: { widgetConfigId: id(seeded.widgetConfigId!) }, body: { name: 'Stolen' } }),
  },
  // Partner contexts and their cohorts (D27, D28).
  cohortCase(contract.settings.getContext),
  cohortCase(contract.settings.updateContext, { name: 'Stolen' }),
  cohortCase(contract.settings.deleteContext),
  cohortCase(contract.cohorts.createPriceSet, { variantKey: 'iso2', type: 'SHIPPING', rules: [] }),
  cohortCase(contract.cohorts.listPriceSets),
  cohortCase(contract.cohorts.getPriceSet),
  cohortCase(contract.cohorts.updatePriceSet, { automaticallyAddToCart: true }),
  cohortCase(contract.cohorts.deletePriceSet),
  cohortCase(contract.cohorts.createWidget, { variantKey: 'iso2', type: 'CART' }),
  cohortCase(contract.cohorts.listWidgets),
  cohortCase(contract.cohorts.getWidget),
  cohortCase(contract.cohorts.updateWidget, { name: 'Stolen' }),
  cohortCase(contract.cohorts.deleteWidget),
];

/** Headers that differ between any two requests: the request id (D2) and clock-driven ones. */
const PER_REQUEST_HEADERS = new Set(['x-request-id', 'date', 'ratelimit-reset']);

const routes = Object.values(contract as unknown as Record<string, Record<string, AppRoute>>).flatMap((g) =>
  Object.values(g),
);
const label = (r: AppRoute) => `${r.method} ${r.path}`;

describe('tenant isolation (D7): a foreign id answers what a missing id answers', () => {
  let server: TestServer;
  let owner: Owner;
  let stranger: Owner;
  let ownerApi: Api;
  let strangerClient: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'iso-owner');
    stranger = await createOwner(server.db, 'iso-stranger');
    const ownerApp = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    const ownerToken = (await installWithToken(server, ownerApp.clientId, owner.store.id, [...SCOPES])).accessToken;
    ownerApi = {
      send: (method, path, json) => server.request(path, { method, headers: bearer(ownerToken), json }),
    };
    strangerClient = (await createApp(server, stranger.user.id, { requestedScopes: [...SCOPES] })).clientId;
  });
  afterAll(async () => {
    await server.close();
  });

  /** Every row that belongs to the owner's store: tables with a store_id, and rows of its orders. */
  const ownerRows = async () => {
    const tables = await sql<{ table: string; column: string }>`
      select table_name as table, column_name as column from information_schema.columns
      where table_schema = 'public' and column_name in ('store_id', 'order_id', 'context_id')
      order by table_name, column_name`.execute(server.db);
    const out: Record<string, unknown> = {};
    for (const { table, column } of tables.rows) {
      const filter =
        column === 'store_id'
          ? sql`t.store_id = ${owner.store.id}`
          : column === 'order_id'
            ? sql`t.order_id in (select id from orders where store_id = ${owner.store.id})`
            : sql`t.context_id in (select id from partner_contexts where store_id = ${owner.store.id})`;
      const rows = await sql<{ rows: unknown }>`
        select coalesce(json_agg(t order by t::text), '[]') as rows from ${sql.table(table)} t where ${filter}`.execute(
        server.db,
      );
      out[`${table}.${column}`] = rows.rows[0]!.rows;
    }
    return out;
  };

  /** A stranger's call with a token of its own, so rate-limit counters start equal. */
  const strangerCall = async (c: IsolationCase, id: (s: string) => string, seeded: Record<string, string>) => {
    const { accessToken } = await installWithToken(server, strangerClient, stranger.store.id, c.scopes);
    const { params, body } = c.call(id, seeded);
    const path = c.route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]!));
    const res = await server.request(path, {
      method: c.route.method,
      headers: bearer(accessToken),
      ...(body !== undefined ? { json: body } : {}),
    });
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !PER_REQUEST_HEADERS.has(name)));
    return { status: res.status, headers, body: await res.text() };
  };

  it.each(ISOLATION_CASES.map((c) => [label(c.route), c] as const))('%s', async (_name, c) => {
    const seeded = await c.seed(ownerApi);
    const before = await ownerRows();
    const missing = await strangerCall(c, (s) => `${s}-missing`, seeded);
    const foreign = await strangerCall(c, (s) => s, seeded);
    expect(foreign).toEqual(missing);
    expect(foreign.status).toBeGreaterThanOrEqual(200);
    expect(await ownerRows()).toEqual(before);
  });

  it('a stranger writing the same ids creates its own resources and leaves the owner’s alone', async () => {
    await seedOrder(ownerApi);
    await seedProducts(ownerApi);
    const before = await ownerRows();
    const { accessToken } = await installWithToken(server, strangerClient, stranger.store.id, [...SCOPES]);
    const send = (method: string, path: string, json: unknown) =>
      server.request(path, { method, headers: bearer(accessToken), json });
    expect((await send('PUT', '/v1/orders/iso-order', { ...ORDER, premiumPaid: 0 })).status).toBe(200);
    expect((await send('PUT', '/v2/products/iso-prod', { name: 'Mine' })).status).toBe(200);
    expect(await ownerRows()).toEqual(before);
    const theirs = await server.request('/v2/products/iso-prod', { headers: bearer(accessToken) });
    expect(((await theirs.json()) as { data: { name: string }[] }).data.map((p) => p.name)).toEqual(['Mine']);
  });

  it('every token route with an id in its path has an entry', () => {
    const listed = new Set(ISOLATION_CASES.map((c) => label(c.route)));
    const missing = routes
      .filter((r) => isRouteMeta(r.metadata) && r.metadata.auth === 'token' && r.path.includes(':'))
      .map(label)
      .filter((l) => !listed.has(l));
    expect(missing).toEqual([]);
  });
});

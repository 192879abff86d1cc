import { contract, SCOPES, type Scope } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database';
import { ROLLUPS, type Rollup } from '../../src/domain/analytics/definition';
import { rollupRows } from '../../src/domain/analytics/rollups';
import { gpsJpeg } from './files';
import { bearer } from './fixtures';
import type { TestServer } from './server';

/**
 * The cases of the isolation suites (D7 tenant isolation, D45 mode isolation): every token
 * route that names a resource by id. `seed` makes the resources in the owner's store through
 * the API, `call` names them (`id` leaves an id as seeded for the foreign call, and turns it
 * into one that names nothing for the missing call; ids the service generated come from what
 * `seed` answers).
 */
export interface Api {
  send(method: string, path: string, json?: unknown): Promise<Response>;
}
export interface IsolationCase {
  route: AppRoute;
  scopes: Scope[];
  /** Makes the owner's resources; may answer ids the service generated, for `call`. */
  seed(api: Api): Promise<Record<string, string>>;
  call(
    id: (seeded: string) => string,
    seeded: Record<string, string>,
  ): { params: Record<string, string>; body?: unknown; query?: string };
}

export const ORDER = {
  sourceOrderNumber: '#9',
  currency: 'EUR',
  platformId: 'api',
  total: 50,
  premiumPaid: 2,
  sourceCreatedAt: '2026-03-01T00:00:00Z',
  // Enough units for every case's claim on the one item (D39).
  lineItems: [{ sourceItemId: 'iso-item', quantity: 100 }],
};
export const seedOrder = async (api: Api) => {
  await api.send('PUT', '/v1/orders/iso-order', ORDER);
  await api.send('PUT', '/v1/orders/iso-order/fulfillments/iso-ful', { fulfillmentStatus: 'IN_TRANSIT' });
  return {};
};
export const seedProducts = async (api: Api) => {
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
export const seedClaim = async (api: Api) => {
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
export const seedCohorts = async (api: Api) => {
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

export const ISOLATION_CASES: IsolationCase[] = [
  // A fulfillment's packages (D54).
  {
    route: contract.tracking.addEvents,
    scopes: ['order:update'],
    seed: seedOrder,
    call: (id) => ({
      params: { sourceOrderId: id('iso-order'), sourceFulfillmentId: id('iso-ful') },
      body: { trackingNumber: 'ISO-1', events: [] },
    }),
  },
  {
    route: contract.tracking.get,
    scopes: ['order:read'],
    seed: seedOrder,
    call: (id) => ({ params: { sourceOrderId: id('iso-order'), sourceFulfillmentId: id('iso-ful') } }),
  },
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
  // Files (D56): the bytes of a file uploaded by the owner.
  {
    route: contract.files.content,
    scopes: ['claim:read'],
    seed: async (api) => {
      const form = new FormData();
      form.set('purpose', 'claim_evidence');
      form.set('file', new Blob([(await gpsJpeg()) as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'photo.jpg');
      const res = await api.send('POST', '/v1/files', form);
      return { fileId: ((await res.json()) as { data: { id: string } }).data.id };
    },
    call: (id, seeded) => ({ params: { fileId: id(seeded.fileId!) } }),
  },
  claimCase(contract.claims.postMessage, { message: 'Mine now', senderType: 'brand' }),
  claimCase(contract.claims.approve, { resolutions: [{ type: 'STORE_CREDIT', paidValue: 50 }] }),
  claimCase(contract.claims.deny, { reason: 'OTHER' }),
  claimCase(contract.claims.transition, { claimState: 'OPEN' }),
  // The claims workspace (D51): another store's claim answers as an unknown one, and gains no note.
  claimCase(contract.claims.getTimeline),
  claimCase(contract.claims.addNote, { note: 'Mine now' }),
  claimCase(contract.claims.previewApproval, { resolutions: [{ type: 'STORE_CREDIT', paidValue: 50 }] }),
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
  // A partner's offer results per cohort (D55).
  {
    ...cohortCase(contract.analytics.offerResults),
    call: (id, seeded) => ({ params: { contextId: id(seeded.contextId!) }, query: 'from=2026-03-01&to=2026-03-31' }),
  },
  // Test helpers (D45): on live stores both answers are the 403 of test stores only; the mode
  // isolation suite runs them with test tokens.
  claimCase(contract.testHelpers.advanceClaim, { claimState: 'OPEN' }),
  claimCase(contract.testHelpers.addShopperMessage, { message: 'Mine now' }),
];

/** Headers that differ between any two requests: the request id (D2) and clock-driven ones. */
const PER_REQUEST_HEADERS = new Set(['x-request-id', 'date', 'ratelimit-reset']);

/**
 * One isolation case called with `accessToken`: its status, the headers that do not change per
 * request, and the raw body, so that two answers compare byte for byte.
 */
export async function callCase(
  server: TestServer,
  accessToken: string,
  c: IsolationCase,
  id: (s: string) => string,
  seeded: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { params, body, query } = c.call(id, seeded);
  const path =
    c.route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]!)) +
    (query ? `?${query}` : '');
  const res = await server.request(path, {
    method: c.route.method,
    headers: bearer(accessToken),
    ...(body !== undefined ? { json: body } : {}),
  });
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !PER_REQUEST_HEADERS.has(name)));
  return { status: res.status, headers, body: await res.text() };
}

/**
 * A day rollup's figures for the store (D52), day rows and what changed since the fold added
 * up per day: the delivering processes fold at any time, which changes no figure.
 */
async function rollupFigures(db: Db, table: Rollup, storeId: string): Promise<unknown> {
  const { key, sums } = ROLLUPS[table];
  const { rows } = await sql<{ rows: unknown }>`
    select coalesce(json_agg(f order by f::text), '[]') as rows from (
      select ${sql.raw(key.join(', '))}, ${sql.raw(sums.map((c) => `sum(${c})::text as ${c}`).join(', '))}
      from ${rollupRows(table)} r where store_id = ${storeId} group by ${sql.raw(key.join(', '))}
      having ${sql.raw(sums.map((c) => `sum(${c}) <> 0`).join(' or '))}
    ) f`.execute(db);
  return rows[0]!.rows;
}

/**
 * Every row that belongs to a store: tables with a store_id, and rows of its orders, claims
 * and partner contexts; the day rollups as their figures.
 */
export async function storeRows(db: Db, storeId: string): Promise<Record<string, unknown>> {
  const tables = await sql<{ table: string; column: string }>`
    select table_name as table, column_name as column from information_schema.columns
    where table_schema = 'public' and column_name in ('store_id', 'order_id', 'context_id', 'claim_id')
    order by table_name, column_name`.execute(db);
  const out: Record<string, unknown> = {};
  for (const { table, column } of tables.rows) {
    // A fold's ledger (D52) changes whenever a fold runs; the day rollups' figures do not.
    if (table.endsWith('_counted')) continue;
    // The claims whose risk awaits the sweep (D57) drain on their own; the risk they get is compared.
    if (table === 'claim_risk_pending') continue;
    if (Object.hasOwn(ROLLUPS, table)) {
      out[`${table}.${column}`] = await rollupFigures(db, table as Rollup, storeId);
      continue;
    }
    const filter =
      column === 'store_id'
        ? sql`t.store_id = ${storeId}`
        : column === 'order_id'
          ? sql`t.order_id in (select id from orders where store_id = ${storeId})`
          : column === 'claim_id'
            ? sql`t.claim_id in (select id from claims where store_id = ${storeId})`
            : sql`t.context_id in (select id from partner_contexts where store_id = ${storeId})`;
    const rows = await sql<{ rows: unknown }>`
      select coalesce(json_agg(t order by t::text), '[]') as rows from ${sql.table(table)} t where ${filter}`.execute(
      db,
    );
    out[`${table}.${column}`] = rows.rows[0]!.rows;
  }
  return out;
}

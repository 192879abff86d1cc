import { contract, isRouteMeta, SCOPES } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createApp, createOwner, dashboardTokenFor, installWithToken, type Owner } from '../harness/fixtures';
import {
  type Api,
  callCase,
  ISOLATION_CASES,
  type IsolationCase,
  ORDER,
  seedOrder,
  seedProducts,
  storeRows,
} from '../harness/isolation-cases';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D7 tenant isolation, shared by every token route that names a resource by id: another
 * store's id answers exactly what a missing id answers (status, body, and every header but the
 * request id and the clock-driven ones), and the owner's data is left as it was.
 *
 * A route joins by adding one entry to ISOLATION_CASES (harness/isolation-cases.ts, shared
 * with the mode isolation suite of D45): `seed` makes the resources in the owner's store
 * through the API, `call` names them. Every token route with an id in its path must have an
 * entry (last test).
 */
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

  /** Every row that belongs to the owner's store. */
  const ownerRows = () => storeRows(server.db, owner.store.id);

  /** A stranger's call with a token of its own, so rate-limit counters start equal. */
  const strangerCall = async (c: IsolationCase, id: (s: string) => string, seeded: Record<string, string>) => {
    const { accessToken } = await installWithToken(server, strangerClient, stranger.store.id, c.scopes);
    return callCase(server, accessToken, c, id, seeded);
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

  /** D49: a staff token of the stranger's owner, minted afresh so rate-limit counters start equal. */
  const strangerStaffToken = async () => {
    const minted = await server
      .api(await dashboardTokenFor(server, stranger.user.id))
      .stores.mintStaffToken({ params: { storeId: stranger.store.id } });
    if (minted.status !== 200) throw new Error(`minting answered ${minted.status}`);
    return minted.body.data.access_token;
  };

  it.each(ISOLATION_CASES.map((c) => [label(c.route), c] as const))(
    'with a staff token (D49): %s',
    async (_name, c) => {
      const seeded = await c.seed(ownerApi);
      const before = await ownerRows();
      const missing = await callCase(server, await strangerStaffToken(), c, (s) => `${s}-missing`, seeded);
      const foreign = await callCase(server, await strangerStaffToken(), c, (s) => s, seeded);
      expect(foreign).toEqual(missing);
      expect(await ownerRows()).toEqual(before);
    },
  );

  it("a dashboard user's foreign store id answers what a missing store answers on every store route (D7, D49)", async () => {
    const storeRoutes = routes.filter(
      (r) => isRouteMeta(r.metadata) && r.metadata.auth === 'dashboard' && r.path.includes(':storeId'),
    );
    expect(storeRoutes.map(label)).toContain('POST /v1/stores/:storeId/staff-tokens');
    const dash = await dashboardTokenFor(server, stranger.user.id);
    const before = await ownerRows();
    for (const route of storeRoutes) {
      const send = async (storeId: string) => {
        const path = route.path.replace(/:(\w+)/g, (_m, name: string) => (name === 'storeId' ? storeId : 'iso-x'));
        // A route that takes a body gets an empty one that passes its schema: the store decides the answer.
        const json =
          route.method === 'PATCH' || route.method === 'PUT'
            ? { json: {} }
            : route.method === 'POST' && route.path.endsWith('/members')
              ? { json: { email: 'iso@example.com', role: 'viewer' } }
              : route.method === 'POST' && route.path.endsWith('/tracking-sources')
                ? { json: { provider: 'easypost' } }
                : {};
        const res = await server.request(path, { method: route.method, headers: bearer(dash), ...json });
        return { status: res.status, body: await res.text() };
      };
      const foreign = await send(owner.store.id);
      const missing = await send('st_missing');
      expect(foreign.status, label(route)).toBe(404);
      expect(foreign, label(route)).toEqual(missing);
    }
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

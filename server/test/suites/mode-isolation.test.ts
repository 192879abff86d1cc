import { SCOPES } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createApp, createOwner, createTestStoreOf, installWithToken, type Owner } from '../harness/fixtures';
import {
  type Api,
  callCase,
  ISOLATION_CASES,
  type IsolationCase,
  seedClaim,
  seedProducts,
  storeRows,
} from '../harness/isolation-cases';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D45 mode isolation, beside the D7 tenant isolation and on the same cases
 * (harness/isolation-cases.ts): for every token route that names a resource by id, a test
 * token naming a live store's resource, and a live token naming a test store's, answer exactly
 * what an id that names nothing answers (status, body, headers but the per-request ones), and
 * the store that owns the resource keeps every row as it was.
 */
const label = (r: AppRoute) => `${r.method} ${r.path}`;

describe('mode isolation (D45): an id of the other mode answers what a missing id answers', () => {
  let server: TestServer;
  let owner: Owner;
  let clientId: string;
  /** The live store whose resources test tokens reach for, and the test store they come from. */
  let liveOwned: string;
  let testCaller: string;
  /** The test store whose resources live tokens reach for, and the live store they come from. */
  let testOwned: string;
  let liveCaller: string;
  const apiOf =
    (token: string): Api['send'] =>
    (method, path, json) =>
      server.request(path, { method, headers: bearer(token), json });

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'mode-owner');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] })).clientId;
    liveOwned = owner.store.id;
    liveCaller = (await createOwner(server.db, 'mode-live-caller')).store.id;
    testOwned = (await createTestStoreOf(server, owner.user.id, clientId, 'Owned')).id;
    testCaller = (await createTestStoreOf(server, owner.user.id, clientId, 'Caller')).id;
  });
  afterAll(async () => {
    await server.close();
  });

  /** A call from `storeId` with a token of its own (its mode's), so rate-limit counters start equal. */
  const callFrom = async (
    storeId: string,
    c: IsolationCase,
    id: (s: string) => string,
    seeded: Record<string, string>,
  ) => {
    const { accessToken } = await installWithToken(server, clientId, storeId, c.scopes);
    return callCase(server, accessToken, c, id, seeded);
  };

  const seedIn = async (storeId: string, c: IsolationCase) => {
    const { accessToken } = await installWithToken(server, clientId, storeId, [...SCOPES]);
    return c.seed({ send: apiOf(accessToken) });
  };

  it.each(ISOLATION_CASES.map((c) => [label(c.route), c] as const))('a test token on a live id: %s', async (_n, c) => {
    const seeded = await seedIn(liveOwned, c);
    const before = await storeRows(server.db, liveOwned);
    const missing = await callFrom(testCaller, c, (s) => `${s}-missing`, seeded);
    const foreign = await callFrom(testCaller, c, (s) => s, seeded);
    expect(foreign).toEqual(missing);
    expect(await storeRows(server.db, liveOwned)).toEqual(before);
  });

  it.each(ISOLATION_CASES.map((c) => [label(c.route), c] as const))('a live token on a test id: %s', async (_n, c) => {
    const seeded = await seedIn(testOwned, c);
    const before = await storeRows(server.db, testOwned);
    const missing = await callFrom(liveCaller, c, (s) => `${s}-missing`, seeded);
    const foreign = await callFrom(liveCaller, c, (s) => s, seeded);
    expect(foreign).toEqual(missing);
    expect(await storeRows(server.db, testOwned)).toEqual(before);
  });

  it('the helpers of a test token act on its own store only: the live store keeps every row', async () => {
    const live = await installWithToken(server, clientId, liveOwned, [...SCOPES]);
    await seedClaim({ send: apiOf(live.accessToken) });
    await seedProducts({ send: apiOf(live.accessToken) });
    const before = await storeRows(server.db, liveOwned);
    const { accessToken } = await installWithToken(server, clientId, testCaller, [...SCOPES]);
    const send = apiOf(accessToken);
    expect((await send('POST', '/v1/test_helpers/events', { topic: 'claim/created' })).status).toBe(201);
    expect((await send('POST', '/v1/test_helpers/deliveries/flush')).status).toBe(200);
    expect((await send('GET', '/v1/test_helpers/mail')).status).toBe(200);
    expect((await send('POST', '/v1/test_helpers/reset')).status).toBe(200);
    expect(await storeRows(server.db, liveOwned)).toEqual(before);
  });
});

import { contract, SCOPES } from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createApp, createOwner, dashboardTokenFor, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Bad input gets a 4xx and never a 500 (with response validation on, a response that breaks
 * the contract would be a 500 too): every route, with valid credentials, is sent bodies,
 * path parameters, queries and headers of the wrong shape.
 */
const routes = Object.values(contract as unknown as Record<string, Record<string, AppRoute>>).flatMap((g) =>
  Object.values(g),
);

const BODIES: unknown[] = [
  null,
  [],
  'text',
  42,
  true,
  { a: { b: { c: [1, 2, { d: null }] } } },
  { grant_type: ['x'], client_id: {}, email: 7, name: '', scopes: 'nope' },
  Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])),
  { __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } },
];
/** Raw JSON that JSON.stringify cannot produce: overflowing numbers, a literal __proto__ key. */
const RAW_BODIES = [
  '{"total":1e309,"price":-1e309,"premiumPaid":-0.01,"currency":"ZZZ","sourceCreatedAt":"31/01/2026"}',
  '{"__proto__":{"isAdmin":true},"productIds":["a"],"name":"x"}',
  `{"lineItems":[${Array.from({ length: 501 }, (_, i) => `{"sourceItemId":"i${i}","quantity":1}`).join(',')}]}`,
  // D47: strings past their bounds, which only a pattern or a format held before.
  JSON.stringify({
    currency: 'USDX',
    sourceCreatedAt: `2026-01-01T00:00:00.${'1'.repeat(60)}Z`,
    variantKey: 'k'.repeat(65),
    scopes: ['s'.repeat(129)],
    code_verifier: 'v'.repeat(129),
    customerPhone: `+1${'5'.repeat(40)}`,
  }),
];
const PARAMS = ['%00', '..%2F..%2Fetc', 'x'.repeat(300), '%F0%9F%92%A5', "' or 1=1 --", '%E0%A4%A'];
const QUERIES = [
  '?first=-1&last=abc',
  '?after=%00&before=%ZZ',
  '?subtotal=1e309&store_url=',
  '?a[b]=1&a[c]=2',
  `?${'x'.repeat(4000)}=1`,
  `?createdAtMin=2026-01-01T00:00:00.${'1'.repeat(60)}Z&variantKey=${'k'.repeat(65)}&key=${'k'.repeat(65)}`,
];

describe('no input makes the server answer 500', () => {
  let server: TestServer;
  let token: string;
  let dashboard: string;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9, auth: 1e9, public: 1e9, sessionVerify: 1e9 } });
    const owner = await createOwner(server.db, 'robust');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    token = (await installWithToken(server, app.clientId, owner.store.id, [...SCOPES])).accessToken;
    dashboard = await dashboardTokenFor(server, owner.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  const credentials = (r: AppRoute) => {
    const auth = (r.metadata as { auth: string }).auth;
    return auth === 'token' ? bearer(token) : auth === 'dashboard' ? bearer(dashboard) : {};
  };

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const statuses = new Set<number>();
    const send = async (path: string, body?: string, headers: Record<string, string> = {}) => {
      const res = await server.request(path, {
        method: route.method,
        headers: {
          ...credentials(route),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: route.method === 'GET' ? undefined : body,
      });
      await res.arrayBuffer();
      statuses.add(res.status);
      expect(res.status < 500, `${route.method} ${path} ${body ?? ''} answered ${res.status}`).toBe(true);
    };
    const base = route.path.replace(/:(\w+)/g, 'x1');
    for (const body of BODIES) await send(base, JSON.stringify(body));
    for (const body of RAW_BODIES) await send(base, body);
    for (const param of PARAMS) await send(route.path.replace(/:(\w+)/g, param), '{}');
    for (const query of QUERIES) await send(base + query, '{}');
    await send(base, '{"unterminated": ');
    await send(base, 'grant_type=client_credentials&grant_type=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    await send(base, '{}', {
      'x-svc-partner-app-id': 'x'.repeat(2000),
      'if-none-match': '"',
      'idempotency-key': 'k'.repeat(300),
    });
    expect(statuses.size).toBeGreaterThan(0);
  });
});

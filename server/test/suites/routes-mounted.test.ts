import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKeys } from '../../src/domain/auth/tokens';
import { mountedRoutes } from '../../src/routes/index';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Every contract route is mounted and answers from its handler (handlers are required by type:
 * a missing one does not compile) — never the 404/405 of an unknown route, never 501.
 */
describe('every contract route is mounted', () => {
  let server: TestServer;
  let routes: ReturnType<typeof mountedRoutes>;
  beforeAll(async () => {
    server = await startTestServer();
    // Only the route list is read here; no request reaches these handlers.
    routes = mountedRoutes({
      db: server.db,
      config: server.config,
      auth: { keys: tokenKeys(server.config.secretKey, server.config.publicBaseUrl) },
    } as never);
  });
  afterAll(async () => {
    await server.close();
  });

  const pathOf = (route: AppRoute) => route.path.replace(/:(\w+)/g, 'x-$1');

  it('answers each of the 104 routes from its handler', async () => {
    expect(routes).toHaveLength(104);
    for (const r of routes) {
      const res = await server.request(pathOf(r.route), {
        method: r.route.method,
        ...(r.route.method === 'GET' ? {} : { json: {} }),
      });
      const body =
        res.status === 304 ? {} : ((await res.json()) as { statusCode?: number; error?: string; message?: string });
      const label = `${r.route.method} ${r.route.path}`;
      expect(body.message ?? '', label).not.toMatch(/^(no route for|method .* not allowed)/);
      expect(res.status, label).not.toBe(501);
      if (['token', 'dashboard', 'provider'].includes((r.route.metadata as { auth: string }).auth)) {
        // Authentication comes first.
        expect(res.status, label).toBe(401);
      }
    }
  });
});

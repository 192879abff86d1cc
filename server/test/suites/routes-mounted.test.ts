import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKeys } from '../../src/domain/auth/tokens';
import { mountedRoutes } from '../../src/routes/index';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Every contract route is mounted: it answers from its handler, or 501 in the D2 shape while
 * it is not written yet — never the 404/405 of an unknown route. Prints the progress.
 */
describe('every contract route is mounted', () => {
  let server: TestServer;
  let routes: ReturnType<typeof mountedRoutes>;
  beforeAll(async () => {
    server = await startTestServer();
    // Only the route list and which have handlers are read here; no request reaches these.
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

  it('answers each route from a handler or with 501, and lists the implemented ones', async () => {
    const implemented: string[] = [];
    for (const r of routes) {
      const res = await server.request(pathOf(r.route), {
        method: r.route.method,
        ...(r.route.method === 'GET' ? {} : { json: {} }),
      });
      const body =
        res.status === 304 ? {} : ((await res.json()) as { statusCode?: number; error?: string; message?: string });
      const label = `${r.route.method} ${r.route.path}`;
      if (r.implemented) {
        implemented.push(label);
        expect(body.message ?? '', label).not.toMatch(/^(no route for|method .* not allowed)/);
        expect(res.status, label).not.toBe(501);
      } else if (['token', 'dashboard'].includes((r.route.metadata as { auth: string }).auth)) {
        // Authentication comes first, even for a route not written yet (security.test.ts
        // shows the 501 with a valid credential).
        expect(res.status, label).toBe(401);
        expect(body, label).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      } else {
        expect(res.status, label).toBe(501);
        expect(body, label).toMatchObject({ statusCode: 501, error: 'Not Implemented' });
      }
    }
    process.stdout.write(
      `implemented routes (${implemented.length}/${routes.length}):\n${implemented.map((l) => `  ${l}`).join('\n')}\n`,
    );
    expect(routes).toHaveLength(63);
  });
});

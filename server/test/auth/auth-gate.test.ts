import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../src/http/auth';
import { HttpError } from '../../src/http/errors';

/** The gate fails closed: a route without valid metadata is unreachable, whoever calls. */
describe('auth gate', () => {
  const gate = authenticate({} as never);

  const run = async (route: Partial<AppRoute> | undefined) => {
    let passed: unknown = 'not called';
    await gate(
      { tsRestRoute: route, headers: { authorization: 'Bearer anything' }, socket: {} } as never,
      { setHeader() {} } as never,
      (err?: unknown) => {
        passed = err;
      },
    );
    return passed;
  };

  it.each([
    ['no route', undefined],
    ['no metadata', { method: 'GET', path: '/x' }],
    [
      'an unknown auth kind',
      {
        method: 'GET',
        path: '/x',
        metadata: { auth: 'admin', scopes: { kind: 'none' }, body: 'plain', source: 'spec' },
      },
    ],
    [
      'metadata without scopes',
      { method: 'GET', path: '/x', metadata: { auth: 'public', body: 'plain', source: 'spec' } },
    ],
  ])('refuses a route with %s', async (_name, route) => {
    const err = await run(route as Partial<AppRoute> | undefined);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(404);
  });
});

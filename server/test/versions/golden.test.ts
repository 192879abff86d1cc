import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SCOPES, type Scope } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, createOwner, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D44: a client of 2025-01-01 keeps getting the same bytes whatever the latest version does.
 * A scripted scenario over every kind of 2025-01-01 difference runs against a real server
 * with a frozen clock (JavaScript's and the database's defaults) and fixed ids, and each
 * answer (status, the version headers, the raw body) is compared byte for byte with the
 * committed file under golden/2025-01-01/. `UPDATE_GOLDEN=1` writes them anew, for a change
 * that is meant to show there (a new version change of 2025-01-01 itself).
 */
vi.mock('../../src/lib/ids', () => {
  const counters = new Map<string, number>();
  return {
    newId(prefix: string) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_golden${String(n).padStart(4, '0')}`;
    },
  };
});
vi.mock('../../src/lib/crypto', async (original) => {
  const real = (await original()) as Record<string, unknown>;
  let n = 0;
  return {
    ...real,
    randomCredential: (prefix: string) => `${prefix}golden${String(++n).padStart(26, '0')}`,
  };
});

const VERSION = '2025-01-01';
const FROZEN = '2026-12-02T10:00:00.000Z';
const DIR = path.resolve(import.meta.dirname, 'golden', VERSION);
/** The headers a golden answer keeps: the version's, and the body's type. */
const KEPT = ['api-version', 'content-type', 'deprecation', 'sunset'];

describe(`golden answers of ${VERSION} (D44)`, () => {
  let server: TestServer;
  let all: string;
  let weak: string;
  const steps: { name: string; method: string; path: string; token?: string; json?: unknown }[] = [];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(FROZEN) });
    server = await startTestServer();
    // The database's clock too: every `default now()` of the test's own database is the frozen instant.
    const columns = await sql<{ tableName: string; columnName: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = 'public' and column_default ilike '%now()%'
    `.execute(server.db);
    for (const c of columns.rows) {
      await sql`alter table ${sql.id(c.tableName)} alter column ${sql.id(c.columnName)} set default ${sql.lit(FROZEN)}::timestamptz`.execute(
        server.db,
      );
    }
    const owner = await createOwner(server.db, 'golden');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    all = (await installWithToken(server, app.clientId, owner.store.id, [...SCOPES] as Scope[])).accessToken;
    weak = (await installWithToken(server, app.clientId, owner.store.id, ['order:read'])).accessToken;
  });
  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
  });

  async function answer(step: (typeof steps)[number]): Promise<string> {
    const res = await server.request(step.path, {
      method: step.method,
      headers: { authorization: `Bearer ${step.token ?? all}`, 'api-version': VERSION },
      ...(step.json !== undefined ? { json: step.json } : {}),
    });
    const headers = KEPT.flatMap((h) => (res.headers.has(h) ? [`${h}: ${res.headers.get(h)}`] : []));
    const request = `${step.method} ${step.path}${step.json !== undefined ? `\n\n${JSON.stringify(step.json)}` : ''}`;
    return `${request}\n\nHTTP ${res.status}\n${headers.join('\n')}\n\n${await res.text()}\n`;
  }

  it('answers the scripted scenario byte for byte as committed', async () => {
    const ctx = 'ctx_golden0001';
    steps.push(
      { name: 'settings-get', method: 'GET', path: '/v2/settings' },
      { name: 'settings-put-gone', method: 'PUT', path: '/v2/settings', json: { sendSmsUpdates: true } },
      {
        name: 'context-create',
        method: 'POST',
        path: '/v2/settings/context',
        json: { name: 'Experiments', variantKey: 'test-a' },
      },
      {
        name: 'context-create-again',
        method: 'POST',
        path: '/v2/settings/context',
        json: { name: 'Other', variantKey: 'test-b' },
      },
      { name: 'context-create-no-key', method: 'POST', path: '/v2/settings/context', json: { name: 'No key' } },
      { name: 'context-list', method: 'GET', path: '/v2/settings/context' },
      { name: 'context-update', method: 'PATCH', path: `/v2/settings/context/${ctx}`, json: { sendSmsUpdates: true } },
      {
        name: 'price-set-create',
        method: 'POST',
        path: `/v2/settings/context/${ctx}/pricing`,
        json: {
          variantKey: 'test-a',
          type: 'SHIPPING',
          rules: [
            { min: 0, max: 100, terms: { customer: { amount: 4, type: 'flat' } } },
            {
              min: 100,
              max: 1000,
              terms: { customer: { amount: 2, type: 'percentage' }, brand: { amount: 1, type: 'fixed' } },
            },
          ],
        },
      },
      { name: 'price-set-list', method: 'GET', path: `/v2/settings/context/${ctx}/pricing` },
      { name: 'context-view', method: 'GET', path: `/v2/settings/context/${ctx}?variantKey=test-a` },
      { name: 'pricing-rules', method: 'GET', path: '/v2/pricing/rules' },
      { name: 'widget-configs', method: 'GET', path: '/v2/widget/config' },
      { name: 'quote', method: 'POST', path: '/v2/quote', json: { orderTotal: 100.5, variantKey: 'test-a' } },
      { name: 'quote-403', method: 'POST', path: '/v2/quote', token: weak, json: { orderTotal: 1 } },
      { name: 'pricing-403', method: 'GET', path: '/v2/pricing/rules', token: weak },
      { name: 'product-missing', method: 'GET', path: '/v2/products/nope' },
      { name: 'order-get-missing', method: 'GET', path: '/v1/orders/nope' },
      { name: 'context-delete', method: 'DELETE', path: `/v2/settings/context/${ctx}` },
    );
    const update = process.env.UPDATE_GOLDEN === '1';
    if (update) {
      rmSync(DIR, { recursive: true, force: true });
      mkdirSync(DIR, { recursive: true });
    }
    const names: string[] = [];
    for (const [i, step] of steps.entries()) {
      const file = `${String(i + 1).padStart(2, '0')}-${step.name}.http`;
      names.push(file);
      const got = await answer(step);
      if (update) writeFileSync(path.join(DIR, file), got);
      expect(existsSync(path.join(DIR, file)), `${file} is committed`).toBe(true);
      expect(got, file).toBe(readFileSync(path.join(DIR, file), 'utf8'));
    }
    // No stale file: the scenario is exactly what is committed.
    expect(readdirSync(DIR).sort()).toEqual(names.sort());
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../src/index';
import * as v20250101 from '../src/versions/2025-01-01';
import { OPERATIONS, operationOf, REQUIRED_CALLS, recording, uncalledOperations } from './harness/route-coverage';

/** Answers like the service (with x-request-id and the version that served it) except where told. */
const answer = (status: number, { service = true, version = '2027-01-15' as string | null } = {}) =>
  new Response('{"statusCode":404,"message":"no","error":"Not Found"}', {
    status,
    headers: {
      'content-type': 'application/json',
      ...(service ? { 'x-request-id': 'r1' } : {}),
      ...(version ? { 'api-version': version } : {}),
    },
  });

/** The recorder behind the every-route check (architecture check 3), per dated version (D44). */
describe('SDK route coverage recorder', () => {
  it('knows all 105 operations of every version and maps requests to them, literal paths first', () => {
    expect(OPERATIONS).toHaveLength(105);
    expect(operationOf('POST', 'http://h/v1/claims/offline')).toBe('claims.fileOffline');
    expect(operationOf('POST', 'http://h/v1/claims/1001')).toBe('claims.file');
    expect(operationOf('GET', 'http://h/v1/claims?first=5')).toBe('claims.list');
    expect(operationOf('GET', 'http://h/v1/apps/svc_app_1/events')).toBe('apps.listEvents');
    expect(operationOf('PUT', 'http://h/v2/settings')).toBe('settings.replace');
    expect(operationOf('PATCH', 'http://h/v1/claims/1001')).toBeUndefined();
    expect(operationOf('GET', 'http://h/nowhere')).toBeUndefined();
  });

  it('requires a token operation on each version, PUT /v2/settings on 2025-01-01, the others once', () => {
    expect(REQUIRED_CALLS).toContain('claims.get@2027-01-15');
    expect(REQUIRED_CALLS).toContain('claims.get@2026-12-01');
    expect(REQUIRED_CALLS).toContain('claims.get@2025-01-01');
    expect(REQUIRED_CALLS).toContain('testHelpers.reset@2025-01-01');
    expect(REQUIRED_CALLS).toContain('settings.replace@2025-01-01');
    expect(REQUIRED_CALLS).not.toContain('settings.replace@2026-12-01');
    expect(REQUIRED_CALLS).not.toContain('settings.replace@2027-01-15');
    expect(REQUIRED_CALLS).toContain('oauth.token');
    expect(REQUIRED_CALLS.filter((c) => c.startsWith('oauth.token'))).toEqual(['oauth.token']);
    const token = OPERATIONS.filter((op) => op.versions);
    // Three versions: a token operation counts three times, PUT /v2/settings once.
    expect(REQUIRED_CALLS).toHaveLength(OPERATIONS.length + 2 * token.length - 2);
  });

  it('records the SDK requests the service answered, with their version, not 501s, fakes or other callers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-calls-test-'));
    const file = path.join(dir, 'calls.log');
    const via = (res: Response) => recording(async () => res, file);
    const sdk = (res: Response) => createClient({ baseUrl: 'http://h', retry: false, fetch: via(res) });
    const old = (res: Response) => v20250101.createClient({ baseUrl: 'http://h', retry: false, fetch: via(res) });
    const unpinned = (res: Response) =>
      createClient({ baseUrl: 'http://h', retry: false, apiVersion: null, fetch: via(res) });
    await sdk(answer(404)).claims.get({ params: { claimId: 'c1' } });
    await sdk(answer(404, { service: false })).orders.get({ params: { sourceOrderId: 'o1' } });
    await sdk(answer(501))
      .products.get({ params: { productId: 'p1' } })
      .catch(() => {});
    await via(answer(200))('http://h/v1/claims', {});
    // The request's version wins; without one, the version the answer says served it.
    await old(answer(404, { version: '2025-01-01' })).claims.get({ params: { claimId: 'c1' } });
    await unpinned(answer(200, { version: '2025-01-01' })).settings.get();
    await old(answer(410, { version: '2025-01-01' })).settings.replace({ body: {} });
    // An unversioned operation counts once, whatever version headers come and go.
    await old(answer(400, { version: null })).auth.refresh({ body: { refreshToken: 'x' } });
    expect(readFileSync(file, 'utf8')).toBe(
      [
        'claims.get@2027-01-15',
        'claims.get@2025-01-01',
        'settings.get@2025-01-01',
        'settings.replace@2025-01-01',
        'auth.refresh',
        '',
      ].join('\n'),
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a token operation called only on the latest as uncalled on the older versions', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-calls-test-'));
    const file = path.join(dir, 'calls.log');
    const latest = createClient({ baseUrl: 'http://h', retry: false, fetch: recording(async () => answer(404), file) });
    await latest.claims.get({ params: { claimId: 'c1' } });
    // Every other required call, made by another worker.
    writeFileSync(path.join(dir, 'other.log'), REQUIRED_CALLS.filter((c) => !c.startsWith('claims.get@')).join('\n'));
    expect(uncalledOperations(dir)).toEqual(['claims.get@2026-12-01', 'claims.get@2025-01-01']);
    rmSync(dir, { recursive: true, force: true });
  });
});

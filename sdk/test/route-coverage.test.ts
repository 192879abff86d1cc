import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient } from '../src/index';
import { OPERATIONS, operationOf, recording } from './harness/route-coverage';

/** The recorder behind the every-route check (architecture check 3). */
describe('SDK route coverage recorder', () => {
  it('knows all 74 operations and maps requests to them, literal paths first', () => {
    expect(OPERATIONS).toHaveLength(74);
    expect(operationOf('POST', 'http://h/v1/claims/offline')).toBe('claims.fileOffline');
    expect(operationOf('POST', 'http://h/v1/claims/1001')).toBe('claims.file');
    expect(operationOf('GET', 'http://h/v1/claims?first=5')).toBe('claims.list');
    expect(operationOf('GET', 'http://h/v1/apps/svc_app_1/events')).toBe('apps.listEvents');
    expect(operationOf('PATCH', 'http://h/v1/claims/1001')).toBeUndefined();
    expect(operationOf('GET', 'http://h/nowhere')).toBeUndefined();
  });

  it('records the SDK requests the service answered, not 501s, fakes or other callers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-calls-test-'));
    const file = path.join(dir, 'calls.log');
    /** Answers like the service (with x-request-id) except where told. */
    const answer = (status: number, service = true) =>
      new Response('{"statusCode":404,"message":"no","error":"Not Found"}', {
        status,
        headers: { 'content-type': 'application/json', ...(service ? { 'x-request-id': 'r1' } : {}) },
      });
    const via = (res: Response) => recording(async () => res, file);
    const sdk = (res: Response) => createClient({ baseUrl: 'http://h', retry: false, fetch: via(res) });
    await sdk(answer(404)).claims.get({ params: { claimId: 'c1' } });
    await sdk(answer(404, false)).orders.get({ params: { sourceOrderId: 'o1' } });
    await sdk(answer(501))
      .products.get({ params: { productId: 'p1' } })
      .catch(() => {});
    await via(answer(200))('http://h/v1/claims', {});
    expect(readFileSync(file, 'utf8')).toBe('claims.get\n');
    rmSync(dir, { recursive: true, force: true });
  });
});

import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness/server';

/** D55: the service serves the <protection-offer> script, by name and by content hash. */
describe('GET /widget/v1/offer.js (D55)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves the script for five minutes with an ETag, and 304 to a matching If-None-Match', async () => {
    const res = await server.request('/widget/v1/offer.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const code = Buffer.from(await res.arrayBuffer());
    expect(code.toString()).toContain('protection-offer');
    expect(gzipSync(code, { level: 9 }).length).toBeLessThanOrEqual(10_000);
    const etag = res.headers.get('etag')!;
    const again = await server.request('/widget/v1/offer.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves the same bytes, immutable, at the first 16 hex of their SHA-256, and 404 at any other hash', async () => {
    const code = Buffer.from(await (await server.request('/widget/v1/offer.js')).arrayBuffer());
    const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
    const pinned = await server.request(`/widget/v1/offer.${hash}.js`);
    expect(pinned.status).toBe(200);
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await pinned.arrayBuffer()).equals(code)).toBe(true);
    expect((await server.request('/widget/v1/offer.0123456789abcdef.js')).status).toBe(404);
    expect((await server.request('/widget/v1/offer.js', { method: 'POST' })).status).toBe(405);
  });
});

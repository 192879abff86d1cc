import type { Server } from 'node:http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domain/webhooks/record';
import { createLogger } from '../../src/logger';
import { registerQueueMetrics, serveMetrics } from '../../src/metrics';
import { bearer, createApp, createOwner, installWithToken, type Owner, withinOneRateWindow } from '../harness/fixtures';
import { labelValues, sample, scrape } from '../harness/prometheus';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * What operators rely on: idle connections outliving a load balancer's, rate limits counting
 * the real client behind trusted proxies (D4), 5xx and slow requests in the log, and the
 * Prometheus figures moving with the traffic.
 */
describe('operating the service', () => {
  let server: TestServer;
  let metricsServer: Server;
  let metricsUrl: string;
  let owner: Owner;
  let token: string;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    server = await startTestServer({}, { logger: createLogger('info', sink), rateLimits: { sessionVerify: 2 } });
    registerQueueMetrics(server.metrics.registry, server.db);
    metricsServer = await serveMetrics(0, '127.0.0.1', createLogger('silent'), async () => ({
      contentType: server.metrics.registry.contentType,
      text: await server.metrics.registry.metrics(),
    }));
    metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
    owner = await createOwner(server.db, 'ops');
    const app = await createApp(server, owner.user.id, {
      webhookUrl: 'https://hooks.example.com/ops',
      webhookTopics: ['claim/denied'],
    });
    token = (await installWithToken(server, app.clientId, owner.store.id, ['store:read'])).accessToken;
  });
  afterAll(async () => {
    metricsServer.close();
    await server.close();
  });

  const logged = (requestId: string) => lines.map((l) => JSON.parse(l)).filter((l) => l.requestId === requestId);

  it('keeps an idle connection open past 5 s, so a client reusing it is served (KEEP_ALIVE_TIMEOUT_MS)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status?: number; reused: boolean; keepAlive?: string | string[] }>((resolve, reject) => {
        const req = http.get(`${server.baseUrl}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode, reused: req.reusedSocket, keepAlive: res.headers['keep-alive'] }),
          );
        });
        req.on('error', reject);
      });
    const first = await get();
    expect(first).toMatchObject({ status: 200, reused: false, keepAlive: 'timeout=65' });
    // Node's default closed idle connections after 5 s; the next request on one could fail.
    await new Promise((r) => setTimeout(r, 6_000));
    expect(await get()).toMatchObject({ status: 200, reused: true });
    agent.destroy();
  }, 30_000);

  describe('per-IP limits behind a trusted proxy (TRUST_PROXY, default loopback)', () => {
    const verify = (forwardedFor: string) =>
      server.request('/v1/oauth/session/verify', {
        method: 'POST',
        headers: { 'x-forwarded-for': forwardedFor },
        json: { session_token: 'x.y.z' },
      });

    it('count each client named by the proxy, and only by the hop the proxy appended', async () => {
      await withinOneRateWindow(10_000);
      const a = '203.0.113.10';
      expect((await verify(a)).status).not.toBe(429);
      expect((await verify(a)).status).not.toBe(429);
      expect((await verify(a)).status).toBe(429);
      // Another client behind the same proxy has its own count.
      expect((await verify('203.0.113.11')).status).not.toBe(429);
      // A client cannot borrow another's address (or escape its own) by sending the header
      // itself: the proxy appends the address it saw, and that is the one counted.
      expect((await verify(`${a}, 203.0.113.12`)).status).not.toBe(429);
      expect((await verify(`198.51.100.1, ${a}`)).status).toBe(429);
    }, 90_000);
  });

  it('logs a 5xx once, at error, with its request id and the error, and no credential', async () => {
    await sql`alter table merchant_settings rename to merchant_settings_away`.execute(server.db);
    try {
      const res = await server.request('/v2/settings', {
        headers: { ...bearer(token), 'x-request-id': 'ops-5xx-1' },
      });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        statusCode: 500,
        message: 'internal server error',
        error: 'Internal Server Error',
      });
    } finally {
      await sql`alter table merchant_settings_away rename to merchant_settings`.execute(server.db);
    }
    await expect.poll(() => logged('ops-5xx-1').length).toBe(1);
    const [line] = logged('ops-5xx-1');
    expect(line).toMatchObject({ level: 50, status: 500, path: '/v2/settings' });
    expect(line.err.message).toContain('merchant_settings');
    expect(JSON.stringify(lines)).not.toContain(token);
  });

  it('logs a request slower than a second at warn', async () => {
    let answered: Promise<Response> | undefined;
    await server.db.transaction().execute(async (trx) => {
      await sql`lock table merchant_settings in access exclusive mode`.execute(trx);
      answered = server.request('/v2/settings', { headers: { ...bearer(token), 'x-request-id': 'ops-slow-1' } });
      await new Promise((r) => setTimeout(r, 1_300));
    });
    expect((await answered!).status).toBe(200);
    await expect.poll(() => logged('ops-slow-1').length).toBe(1);
    expect(logged('ops-slow-1')[0]).toMatchObject({ level: 40, msg: 'slow request', status: 200 });
    expect(logged('ops-slow-1')[0].ms).toBeGreaterThan(1000);
  });

  describe('Prometheus metrics', () => {
    it('are not served on the public port', async () => {
      expect((await server.request('/metrics')).status).toBe(404);
      expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
    });

    it('count requests and their latency by contract route template, never by raw path', async () => {
      const before = await scrape(metricsUrl);
      const route = '/v1/orders/:sourceOrderId';
      for (const id of ['o-metrics-1', 'o-metrics-2', 'o-metrics-3']) {
        await server.request(`/v1/orders/${id}`, { headers: bearer(token) });
      }
      await server.request('/v2/settings', { headers: bearer(token) });
      await server.request('/no/such/path/12345');
      const after = await scrape(metricsUrl);
      const count = (text: string, labels: Record<string, string>) => sample(text, 'http_requests_total', labels);
      // The token lacks order:read: 403, counted under the template.
      expect(count(after, { route, status: '403' }) - count(before, { route, status: '403' })).toBe(3);
      expect(count(after, { route: '/v2/settings', status: '200' })).toBeGreaterThan(
        count(before, { route: '/v2/settings', status: '200' }),
      );
      expect(
        sample(after, 'http_request_duration_seconds_count', { route, method: 'GET' }) -
          sample(before, 'http_request_duration_seconds_count', { route, method: 'GET' }),
      ).toBe(3);
      const routes = labelValues(after, 'http_requests_total', 'route');
      expect(routes).toContain('unmatched');
      expect(routes.filter((r) => r.includes('o-metrics') || r.includes('12345'))).toEqual([]);
    });

    it('count public-cache hits and misses and rate-limit refusals', async () => {
      const before = await scrape(metricsUrl);
      const read = `/v1/quote/insurance?store_url=${owner.store.domain}&subtotal=10`;
      expect((await server.request(read)).status).toBe(200);
      expect((await server.request(read)).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        await server.request('/v1/oauth/session/verify', {
          method: 'POST',
          headers: { 'x-forwarded-for': '203.0.113.99' },
          json: { session_token: 'x.y.z' },
        });
      }
      const after = await scrape(metricsUrl);
      const delta = (name: string, labels: Record<string, string>) =>
        sample(after, name, labels) - sample(before, name, labels);
      expect(delta('public_cache_requests_total', { result: 'miss' })).toBeGreaterThanOrEqual(1);
      expect(delta('public_cache_requests_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
      expect(delta('rate_limit_refusals_total', { limit: 'sessionVerify' })).toBeGreaterThanOrEqual(1);
      expect(sample(after, 'db_pool_connections')).toBeGreaterThan(0);
    });

    it('show the webhook queue: depth, the oldest pending age, deliveries by outcome', async () => {
      const event = await server.db.transaction().execute((trx) =>
        recordEvent(trx, {
          storeId: owner.store.id,
          topic: 'claim/denied',
          body: { claimId: 'cl_m', storeId: owner.store.id, sourceOrderId: 'o-m', reason: 'OTHER' },
        }),
      );
      expect(event.subscribers).toHaveLength(1);
      await server.db
        .updateTable('webhookDeliveries')
        .set({ createdAt: new Date(Date.now() - 120_000) })
        .where('eventId', '=', event.id)
        .execute();
      await expect.poll(async () => sample(await scrape(metricsUrl), 'webhook_queue_depth')).toBe(1);
      const pending = await scrape(metricsUrl);
      expect(sample(pending, 'webhook_deliveries', { status: 'pending' })).toBe(1);
      expect(sample(pending, 'webhook_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(119);

      await server.db
        .updateTable('webhookDeliveries')
        .set({ status: 'delivered', nextAttemptAt: null })
        .where('eventId', '=', event.id)
        .execute();
      await expect.poll(async () => sample(await scrape(metricsUrl), 'webhook_queue_depth')).toBe(0);
      const delivered = await scrape(metricsUrl);
      expect(sample(delivered, 'webhook_deliveries', { status: 'delivered' })).toBe(1);
      expect(sample(delivered, 'webhook_oldest_pending_age_seconds')).toBe(0);
    });
  });
});

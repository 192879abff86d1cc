import { SCOPES } from '@protection-service/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, dashboardTokenFor, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { type ClientOptions, createClient, type FetchMiddleware, ProtectionApiError, unwrap } from '../src/index';
import { retryAfterMs } from '../src/retry';
import { type FaultProxy, startFaultProxy } from './harness/fault-proxy';

/**
 * Retries and default Idempotency-Keys (D33), through a fault-injecting proxy on loopback in
 * front of the real server: gateways answering 502/503/504, rate limits with Retry-After,
 * connections that fail, and answers lost after the service committed the change.
 */
describe('SDK retries and idempotency', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  let accessToken: string;
  let dashboardToken: string;
  /** Fast backoff, so that tests wait milliseconds, not seconds. */
  const fast = { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 };

  beforeAll(async () => {
    server = await startTestServer();
    proxy = await startFaultProxy(server.baseUrl);
    const owner = await createOwner(server.db, 'sdk-retry');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    accessToken = (await installWithToken(server, app.clientId, owner.store.id, [...SCOPES])).accessToken;
    dashboardToken = await dashboardTokenFor(server, owner.user.id);
  });
  afterEach(() => {
    proxy.seen.length = 0;
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });

  /** A client through the proxy, with a middleware that records every attempt it sees. */
  function client(options: Partial<ClientOptions> = {}) {
    const attempts: string[] = [];
    const recorder: FetchMiddleware = (next) => async (url, init) => {
      const res = await next(url, init).catch((e: unknown) => {
        attempts.push(`${init.method} network-error`);
        throw e;
      });
      attempts.push(`${init.method} ${res.status}`);
      return res;
    };
    const sdk = createClient({ baseUrl: proxy.baseUrl, accessToken, retry: fast, middleware: [recorder], ...options });
    return { sdk, attempts };
  }
  const on = (method: string, path: string) => (m: string, p: string) => m === method && p === path;

  it('retries a GET after 503, 502 and 504 answers up to maxRetries; middleware sees each attempt', async () => {
    const { sdk, attempts } = client();
    proxy.inject([{ status: 503 }, { status: 502 }], on('GET', '/v2/settings'));
    expect((await sdk.settings.get()).status).toBe(200);
    expect(attempts).toEqual(['GET 503', 'GET 502', 'GET 200']);

    // Three failures: the retries are spent, and the undeclared 504 throws.
    proxy.inject([{ status: 504 }, { status: 504 }, { status: 504 }], on('GET', '/v2/settings'));
    const error = await sdk.settings.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtectionApiError);
    expect((error as ProtectionApiError).status).toBe(504);
    expect(proxy.seen.filter((s) => s.path === '/v2/settings')).toHaveLength(3 + 3);
  });

  it('retries a connection that failed', async () => {
    const { sdk, attempts } = client();
    proxy.inject(['reset'], on('GET', '/v2/settings'));
    expect((await sdk.settings.get()).status).toBe(200);
    expect(attempts).toEqual(['GET network-error', 'GET 200']);
  });

  it('answers the last 429 once the retries are spent (429 is declared), and never retries another 4xx', async () => {
    const { sdk, attempts } = client({ retry: { ...fast, maxRetries: 1 } });
    proxy.inject([{ status: 429 }, { status: 429 }], on('GET', '/v2/settings'));
    expect((await sdk.settings.get()).status).toBe(429);
    expect(attempts).toEqual(['GET 429', 'GET 429']);

    proxy.inject(
      [{ status: 409, headers: { 'content-type': 'application/json' }, body: '{}' }],
      on('GET', '/v2/settings'),
    );
    attempts.length = 0;
    await sdk.settings.get().catch(() => {});
    expect(attempts).toEqual(['GET 409']);
  });

  it('waits what Retry-After asks, in seconds, before retrying', async () => {
    const { sdk } = client({ retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5_000 } });
    proxy.inject([{ status: 429, headers: { 'retry-after': '1' } }], on('GET', '/v2/settings'));
    const started = performance.now();
    expect((await sdk.settings.get()).status).toBe(200);
    // Backoff alone would wait at most 1 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('reads Retry-After as seconds or an HTTP date, and caps it', () => {
    const now = Date.parse('2026-01-31T12:00:00.000Z');
    expect(retryAfterMs('3', 20_000, now)).toBe(3_000);
    expect(retryAfterMs('Sat, 31 Jan 2026 12:00:05 GMT', 20_000, now)).toBe(5_000);
    expect(retryAfterMs('Sat, 31 Jan 2026 11:00:00 GMT', 20_000, now)).toBe(0);
    expect(retryAfterMs('3600', 20_000, now)).toBe(20_000);
    expect(retryAfterMs('soon', 20_000, now)).toBeUndefined();
    expect(retryAfterMs(null, 20_000, now)).toBeUndefined();
  });

  it('sends once with retry: false', async () => {
    const { sdk, attempts } = client({ retry: false });
    proxy.inject([{ status: 503 }], on('GET', '/v2/settings'));
    await expect(sdk.settings.get()).rejects.toMatchObject({ status: 503 });
    expect(attempts).toEqual(['GET 503']);
  });

  it('does not retry a POST that carries no Idempotency-Key', async () => {
    // App registration is a dashboard POST: it takes no Idempotency-Key (D33 covers token POSTs).
    const { sdk, attempts } = client({ accessToken: dashboardToken });
    proxy.inject([{ status: 503 }], on('POST', '/v1/apps'));
    const body = {
      name: 'Not twice',
      redirectUris: ['https://app.example.com/cb'],
      requestedScopes: ['order:read'],
      distribution: 'private' as const,
    };
    await expect(sdk.apps.create({ body })).rejects.toMatchObject({ status: 503 });
    expect(attempts).toEqual(['POST 503']);
    expect(proxy.seen.at(-1)!.headers['idempotency-key']).toBeUndefined();
  });

  it('gives every token POST an Idempotency-Key, the same on each retry; a key the caller passes wins', async () => {
    // The proxy answers every attempt itself: what is checked is what the SDK sends.
    const { sdk, attempts } = client();
    const quote = { body: { policyType: 'SHIPPING' as const, orderTotal: 120 } };
    const sent = () => proxy.seen.filter((s) => s.path === '/v2/quote').map((s) => s.headers['idempotency-key']);
    proxy.inject([{ status: 503 }, { status: 503 }, { status: 503 }], on('POST', '/v2/quote'));
    await expect(sdk.quote.create(quote)).rejects.toMatchObject({ status: 503 });
    expect(attempts).toEqual(['POST 503', 'POST 503', 'POST 503']);
    const [first, ...retries] = sent();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(retries).toEqual([first, first]);

    proxy.inject([{ status: 503 }], on('POST', '/v2/quote'));
    await sdk.quote.create(quote).catch(() => {});
    expect(sent().at(-1)).not.toBe(first); // one key per call, not per client

    proxy.inject([{ status: 503 }, { status: 503 }, { status: 503 }], on('POST', '/v2/quote'));
    await sdk.quote.create({ ...quote, headers: { 'idempotency-key': 'order-1001-quote' } }).catch(() => {});
    expect(sent().slice(-3)).toEqual(['order-1001-quote', 'order-1001-quote', 'order-1001-quote']);
  });

  it('retries a PUT whose answer was lost after the service committed it', async () => {
    const { sdk, attempts } = client();
    const widget = unwrap(await sdk.widgets.list()).data[0]!;
    proxy.inject(['drop-answer'], on('PUT', `/v2/widget/config/${widget.id}`));
    const res = await sdk.widgets.update({ params: { widgetConfigId: widget.id }, body: { name: 'Renamed once' } });
    expect(res.status).toBe(200);
    expect(attempts).toEqual(['GET 200', 'PUT network-error', 'PUT 200']);
    const after = unwrap(await sdk.widgets.list()).data.filter((w) => w.id === widget.id);
    expect(after.map((w) => w.name)).toEqual(['Renamed once']);
  });

  it('files exactly one claim when the answer of the filing was lost (D23, D33)', async () => {
    const { sdk, attempts } = client();
    const sourceOrderId = 'lost-answer-1';
    const order = await sdk.orders
      .upsert({
        params: { sourceOrderId },
        body: {
          sourceOrderNumber: '#1',
          currency: 'USD',
          platformId: 'api',
          total: 50,
          sourceCreatedAt: '2026-01-31T12:00:00.000Z',
          lineItems: [
            {
              sourceItemId: 'li1',
              sourceProductId: 'p1',
              sourceVariantId: 'v1',
              name: 'Mug',
              sku: 'MUG',
              quantity: 1,
              price: 50,
              isShippable: true,
            },
          ],
        },
      })
      .catch((e: unknown) => e);
    expect(order).toMatchObject({ status: 200 });

    attempts.length = 0;
    proxy.inject(['drop-answer'], on('POST', `/v1/claims/${sourceOrderId}`));
    const filed = await sdk.claims.file({
      params: { sourceOrderId },
      body: {
        email: 'shopper@example.com',
        salesChannel: 'ONLINE',
        claimCategory: 'SHIPPING',
        resolution: { desiredMethod: 'REFUND' },
        fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', sourceItemId: 'li1', quantity: 1 }] }],
      },
    });
    expect(attempts).toEqual(['POST network-error', 'POST 200']);
    expect(filed.headers.get('idempotent-replayed')).toBe('true');
    const claims = unwrap(await sdk.claims.list({ query: { sourceOrderId } }));
    expect(claims.edges).toHaveLength(1);
  });
});

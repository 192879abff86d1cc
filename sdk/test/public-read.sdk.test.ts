import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/src/domain/identity/stores';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import {
  type Client,
  createClient,
  DEFAULT_TIMEOUT_MS,
  type Fetch,
  type FetchMiddleware,
  ProtectionApiError,
  type TInsuranceQuote,
  USER_AGENT,
  unwrap,
} from '../src/index';

/** The public insurance read (D29) through the SDK, against the real server. */
describe('SDK: client.public.getInsurance', () => {
  let server: TestServer;
  let client: Client;
  const domain = 'sdk-shop.example.com';

  beforeAll(async () => {
    server = await startTestServer();
    await createStore(server.db, { name: 'SDK Shop', domain, currency: 'USD' });
    // A trailing slash on the base URL is tolerated.
    client = createClient({ baseUrl: `${server.baseUrl}/` });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Records what reaches fetch: the seam an auth layer would use. */
  function recorder(): { seen: { url: string; headers: Headers }[]; middleware: FetchMiddleware } {
    const seen: { url: string; headers: Headers }[] = [];
    return {
      seen,
      middleware: (next) => (url, init) => {
        seen.push({ url, headers: new Headers(init.headers) });
        return next(url, init);
      },
    };
  }

  it('answers 200 with the typed merchant rule set and a D31 quote', async () => {
    const res = await client.public.getInsurance({ query: { store_url: domain, subtotal: 100 } });
    expect(res.status).toBe(200);
    if (res.status !== 200) return;
    const body: TInsuranceQuote = res.body;
    expect(body.source).toBe('merchant');
    expect(body.rules).toEqual([
      {
        id: expect.stringMatching(/^ru_/),
        min: 0,
        max: 1_000_000,
        terms: { paidBy: null, operator: 'AND', customer: { amount: 2, type: 'percentage' }, brand: null },
      },
    ]);
    expect(body.quote).toMatchObject({ policyType: 'SHIPPING', currency: 'USD', subtotal: 100, premium: 2 });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(unwrap(res)).toEqual(body);
  });

  it('answers 404 for an unknown store with the D2 body; unwrap throws it as ProtectionApiError', async () => {
    const res = await client.public.getInsurance({ query: { store_url: 'nobody.example.com' } });
    expect(res.status).toBe(404);
    if (res.status !== 404) return;
    expect(res.body).toEqual({ statusCode: 404, message: expect.any(String), error: 'Not Found' });

    const error = (() => {
      try {
        unwrap(res);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProtectionApiError);
    expect(error).toMatchObject({
      name: 'ProtectionApiError',
      status: 404,
      body: res.body,
      requestId: res.headers.get('x-request-id'),
      message: `404 Not Found: ${res.body.message}`,
    });
  });

  it('answers 400 with D2 issues for a bad query', async () => {
    // The SDK types subtotal as a number; the server still checks the query string it gets.
    const bad = await client.public.getInsurance({
      query: { store_url: domain, subtotal: 'lots' as unknown as number },
    });
    expect(bad.status).toBe(400);
    if (bad.status !== 400) return;
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(bad.body.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'query.subtotal' })]));

    // Neither store_url nor storeId (D29).
    const neither = await client.public.getInsurance({ query: {} });
    expect(neither.status).toBe(400);
    expect(() => unwrap(neither)).toThrow(ProtectionApiError);
  });

  it('round-trips the ETag: If-None-Match answers 304 with no body', async () => {
    const query = { store_url: domain, subtotal: 50 };
    const first = await client.public.getInsurance({ query });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();

    const again = await client.public.getInsurance({ query, headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.get('etag')).toBe(etag);
    // Not a success: callers of conditional reads look at the status before unwrapping.
    expect(() => unwrap(again)).toThrow(expect.objectContaining({ status: 304 }));

    const changed = await client.public.getInsurance({ query, headers: { 'if-none-match': '"stale"' } });
    expect(changed.status).toBe(200);
  });

  it('sends its user-agent, the access token and custom headers through the middleware chain, in order', async () => {
    const order: string[] = [];
    const tag =
      (name: string): FetchMiddleware =>
      (next) =>
      (url, init) => {
        order.push(name);
        return next(url, init);
      };
    const rec = recorder();
    const sdk = createClient({
      baseUrl: server.baseUrl,
      accessToken: 'svc_at_example',
      headers: { 'x-request-id': 'sdk-test-request-1' },
      middleware: [tag('outer'), tag('inner'), rec.middleware],
    });
    const res = await sdk.public.getInsurance({ query: { store_url: 'nobody.example.com' } });
    expect(order).toEqual(['outer', 'inner']);
    expect(rec.seen).toHaveLength(1);
    const sent = rec.seen[0]!;
    expect(sent.url).toBe(`${server.baseUrl}/v1/quote/insurance?store_url=nobody.example.com`);
    expect(sent.headers.get('user-agent')).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^protection-service-sdk\/\d+\.\d+\.\d+/);
    expect(sent.headers.get('authorization')).toBe('Bearer svc_at_example');
    // The server echoes the request id (D2), and the error carries it.
    expect(res.headers.get('x-request-id')).toBe('sdk-test-request-1');
    expect(() => unwrap(res)).toThrow(expect.objectContaining({ requestId: 'sdk-test-request-1' }));

    const custom = recorder();
    await createClient({
      baseUrl: server.baseUrl,
      headers: { 'User-Agent': 'storefront/2.0' },
      middleware: [custom.middleware],
    }).public.getInsurance({ query: { store_url: domain } });
    expect(custom.seen[0]!.headers.get('user-agent')).toBe('storefront/2.0');
  });

  it('throws ProtectionApiError for a failure the route does not declare, such as a proxy 502', async () => {
    const proxy: FetchMiddleware = () => async () =>
      new Response('<html>bad gateway</html>', {
        status: 502,
        headers: { 'content-type': 'text/html', 'x-request-id': 'edge-1' },
      });
    const sdk = createClient({ baseUrl: server.baseUrl, middleware: [proxy] });
    const error = await sdk.public.getInsurance({ query: { store_url: domain } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtectionApiError);
    expect(error).toMatchObject({
      status: 502,
      requestId: 'edge-1',
      body: { statusCode: 502, error: 'Error', message: '<html>bad gateway</html>' },
    });
  });

  it('aborts a call after timeoutMs, and on a per-call signal', async () => {
    // A fetch that never answers until its signal aborts, as a hung connection would.
    const hanging: Fetch = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    const slow = createClient({ baseUrl: server.baseUrl, fetch: hanging, timeoutMs: 50 });
    await expect(slow.public.getInsurance({ query: { store_url: domain } })).rejects.toMatchObject({
      name: 'TimeoutError',
    });

    const controller = new AbortController();
    const pending = createClient({ baseUrl: server.baseUrl, fetch: hanging }).public.getInsurance({
      query: { store_url: domain },
      fetchOptions: { signal: controller.signal },
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('calls the real fetch with a default 30 s timeout signal', async () => {
    const rec: { signal?: AbortSignal | null }[] = [];
    const sdk = createClient({
      baseUrl: server.baseUrl,
      middleware: [
        (next) => (url, init) => {
          rec.push({ signal: init.signal });
          return next(url, init);
        },
      ],
    });
    expect((await sdk.public.getInsurance({ query: { store_url: domain } })).status).toBe(200);
    expect(rec[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(rec[0]!.signal!.aborted).toBe(false);
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);

    const none: { signal?: AbortSignal | null }[] = [];
    await createClient({
      baseUrl: server.baseUrl,
      timeoutMs: 0,
      middleware: [
        (next) => (url, init) => {
          none.push({ signal: init.signal });
          return next(url, init);
        },
      ],
    }).public.getInsurance({ query: { store_url: domain } });
    expect(none[0]!.signal).toBeUndefined();
  });
});

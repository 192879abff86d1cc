import { readFileSync } from 'node:fs';
import { API_VERSIONS, ZError } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE, openApiFileOf } from '../../../scripts/openapi';
import { DEPLOYMENT_ENVIRONMENTS } from '../../src/config';
import { servedDocument } from '../../src/http/docs';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

/** Behaviour every route shares: D2 errors, request ids, 404/405/413/415, health. */
describe('HTTP basics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const expectD2 = async (res: Response, status: number, error: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ statusCode: status, error });
    expect(typeof body.message).toBe('string');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|node_modules|select |insert /i);
    return body;
  };

  it('answers /healthz and /readyz', async () => {
    expect(await (await server.request('/healthz')).json()).toEqual({ status: 'ok' });
    expect(await (await server.request('/readyz')).json()).toEqual({ status: 'ok' });
  });

  it('gives every response an x-request-id and echoes a usable one', async () => {
    const generated = await server.request('/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await server.request('/nowhere', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const forged = await server.request('/healthz', { headers: { 'x-request-id': 'a\tb' } });
    expect(forged.headers.get('x-request-id')).not.toBe('a\tb');
  });

  it('answers an unknown path 404 in the D2 shape', async () => {
    await expectD2(await server.request('/v1/nothing-here'), 404, 'Not Found');
  });

  it('answers a known path with the wrong method 405 with Allow', async () => {
    const res = await server.request('/v1/quote/insurance', { method: 'POST', json: {} });
    expect(res.headers.get('allow')).toContain('GET');
    await expectD2(res, 405, 'Method Not Allowed');
    const options = await server.request('/v1/orders/o-1', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toMatch(/PUT.*GET.*DELETE|GET/);
  });

  it('answers malformed JSON 400', async () => {
    const res = await server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email": ',
    });
    await expectD2(res, 400, 'Bad Request');
  });

  it('answers a body of the wrong content type 415', async () => {
    const res = await server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    await expectD2(res, 415, 'Unsupported Media Type');
  });

  it('accepts form bodies only on the OAuth token and revoke endpoints', async () => {
    const res = await server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.c&password=x',
    });
    await expectD2(res, 415, 'Unsupported Media Type');
  });

  it('refuses NUL characters in bodies and URLs with 400 (PostgreSQL text cannot hold them)', async () => {
    const body = await expectD2(
      await server.request('/v1/auth/login', { method: 'POST', json: { email: 'a\u0000@b.c', password: 'x' } }),
      400,
      'Bad Request',
    );
    expect(body.message).toMatch(/NUL/);
    // Checked on the raw text: in a key, after escaped backslashes, in a UTF-16 body.
    for (const raw of ['{"a\\u0000":1}', '{"email":"\\\\\\u0000","password":"x"}']) {
      const res = await server.request('/v1/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect((await expectD2(res, 400, 'Bad Request')).message).toMatch(/NUL/);
    }
    const utf16 = await server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body: Buffer.from('{"email":"a\\u0000","password":"x"}', 'utf16le'),
    });
    expect((await expectD2(utf16, 400, 'Bad Request')).message).toMatch(/NUL/);
    // An escaped backslash followed by the letters u0000 is no NUL: the login is merely wrong.
    const literal = await server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":"a\\\\u0000@b.c","password":"x"}',
    });
    expect((await jsonOf(literal, ZError)).message).not.toMatch(/NUL/);
    await expectD2(await server.request('/v1/apps/%00'), 400, 'Bad Request');
    await expectD2(await server.request('/v1/quote/insurance?store_url=a%00b'), 400, 'Bad Request');
  });

  it('answers a body over 1 MiB 413 (D3)', async () => {
    const res = await server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(1024 * 1024) }),
    });
    await expectD2(res, 413, 'Payload Too Large');
  });

  it('answers repeated query parameters 400 instead of guessing', async () => {
    const res = await server.request('/v1/quote/insurance?storeId=a&storeId=b');
    const body = await expectD2(res, 400, 'Bad Request');
    expect(body.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^query\./) })]),
    );
  });

  it('serves the OpenAPI document and the docs page with its assets', async () => {
    const doc = await server.request('/openapi.json');
    expect(doc.status).toBe(200);
    // The committed document, but for the server it names: this deployment's public address.
    type Doc = { servers: { url: string }[]; info: { contact: { url: string } } };
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Doc;
    const live = (await doc.json()) as Doc;
    // Named by its environment (DEPLOYMENT_ENVIRONMENT; the test servers are `test`).
    expect(live.servers).toEqual([
      { url: server.config.publicBaseUrl, description: 'Test deployment', 'x-internal': false },
    ]);
    expect(live.info.contact.url).toBe(`${server.config.publicBaseUrl}/docs`);
    expect({ ...live, servers: committed.servers, info: committed.info }).toEqual(committed);
    const page = await server.request('/docs');
    expect(page.status).toBe(200);
    const asset = await server.request('/docs/assets/redoc.standalone.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    await expectD2(await server.request('/docs/assets/missing.js'), 404, 'Not Found');
  });

  it('names its environment in every served document as the OWASP inventory rule asks, whatever the setting', async () => {
    // The rule's own pattern, from the pinned rule set `pnpm lint:openapi` runs.
    const { default: ruleset } = await import('@stoplight/spectral-owasp-ruleset');
    const rule = (
      ruleset.rules['owasp:api9:2023-inventory-environment'] as { then: { functionOptions: { match: string } } }
    ).then.functionOptions.match;
    const [, source, flags] = /^\/(.*)\/(\w*)$/.exec(rule)!;
    for (const deploymentEnvironment of DEPLOYMENT_ENVIRONMENTS) {
      for (const [file, version] of [
        [OPENAPI_FILE, undefined] as const,
        ...API_VERSIONS.map((v) => [openApiFileOf(v), v] as const),
      ]) {
        const served = servedDocument(file, version, {
          publicBaseUrl: 'https://api.example.com',
          deploymentEnvironment,
        });
        const doc = JSON.parse(served) as { servers: { url: string; description: string }[] };
        expect(doc.servers[0]!.description).toMatch(new RegExp(source!, flags));
        expect(doc.servers[0]!.url).toBe('https://api.example.com');
      }
    }
  });
});

import { readFileSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../../scripts/openapi';
import { bearer, createApp, createOwner, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

type Operation = { operationId: string; parameters?: { name: string; in: string; schema: { maxLength?: number } }[] };
const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Every request header the document bounds, with its bound, by operation. */
const declared = Object.values(doc.paths).flatMap((item) =>
  Object.values(item).flatMap((op) =>
    (op.parameters ?? [])
      .filter((p) => p.in === 'header' && p.schema.maxLength !== undefined)
      .map((p) => ({ operationId: op.operationId, header: p.name, max: p.schema.maxLength! })),
  ),
);

/** Sends raw bytes and answers everything the server wrote before it closed the connection. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d;
    });
    socket.on('error', (err) => (got ? resolve(got) : reject(err)));
    socket.on('close', () => resolve(got));
    socket.write(request);
  });
}

/** The status, headers and JSON body of a raw answer. */
function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) as Record<string, unknown> };
}

/**
 * D2 for what Node's HTTP parser refuses before the app sees a request, and the header bounds
 * of the document (D47): each declared maximum is accepted, one more is refused in the D2
 * shape, and all of them at once stay inside what Node reads.
 */
describe("refusals of Node's parser, and the document's header bounds", () => {
  let server: TestServer;
  let port: number;
  let owner: Owner;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    port = Number(new URL(server.baseUrl).port);
    owner = await createOwner(server.db, 'header-bounds');
    const app = await createApp(server, owner.user.id, { requestedScopes: ['quote:read'] });
    token = (await installWithToken(server, app.clientId, owner.store.id, ['quote:read'])).accessToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  const expectD2 = (answer: string, status: number, error: string) => {
    const { status: got, headers, body } = parse(answer);
    expect(got).toBe(status);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers.connection).toBe('close');
    expect(body).toEqual({ statusCode: status, error, message: expect.any(String) });
    return body;
  };

  it('answers headers past what Node reads 431 in the D2 shape', async () => {
    const answer = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(maxHeaderSize)}\r\n\r\n`);
    const body = expectD2(answer, 431, 'Request Header Fields Too Large');
    expect(body.message).toContain(String(maxHeaderSize));
  });

  it.each([
    ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n'],
    ['a header name with a space', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
    [
      'a bad chunk size',
      'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ],
  ])('answers %s 400 in the D2 shape', async (_, request) => {
    expectD2(await raw(port, request), 400, 'Bad Request');
  });

  it('bounds only the headers this test sends (a new bound needs a case here)', () => {
    expect([...new Set(declared.map((d) => d.header))].sort()).toEqual([
      'idempotency-key',
      'if-none-match',
      'x-svc-partner-app-id',
      'x-svc-partner-variant',
    ]);
  });

  /** A request of the operation that the document calls valid but for `header`. */
  const requestOf = (operationId: string, header: string, value: string): Promise<Response> => {
    const headers = { [header]: value };
    switch (operationId) {
      case 'getPublicInsurance':
        return server.request(`/v1/quote/insurance?store_url=${owner.store.domain}&subtotal=100`, { headers });
      case 'getPublicPartnerInsurance':
        return server.request(`/v2/quote/insurance/partner/svc_app_none?store_url=${owner.store.domain}&key=a`, {
          headers,
        });
      case 'getPublicPartnerWidgets':
        return server.request(`/v2/widget/config/partner/svc_app_none?store_url=${owner.store.domain}&key=a`, {
          headers,
        });
      case 'createQuote':
        return server.request('/v2/quote', {
          method: 'POST',
          headers: { ...bearer(token), ...headers },
          json: { orderTotal: 49.99, currency: 'USD' },
        });
      default:
        throw new Error(`no request for ${operationId} (${header})`);
    }
  };
  // Each header once per operation kind: the public reads that take it, and one token POST for
  // the Idempotency-Key every token POST shares.
  const cases = declared.filter((d) => d.header !== 'idempotency-key' || d.operationId === 'createQuote');

  it.each(cases)('$operationId: $header of $max characters is accepted, one more answers 400', async (c) => {
    // The partner reads name an app that does not exist: 404, past the headers' validation.
    const accepted: number | undefined = (
      { getPublicPartnerInsurance: 404, getPublicPartnerWidgets: 404, createQuote: 201 } as Record<string, number>
    )[c.operationId];
    const atMax = await requestOf(c.operationId, c.header, 'k'.repeat(c.max));
    expect(atMax.status).toBe(accepted ?? 200);
    const over = await requestOf(c.operationId, c.header, 'k'.repeat(c.max + 1));
    expect(over.status).toBe(400);
    const body = (await over.json()) as { error: string; issues: { path: string }[] };
    expect(body.error).toBe('Bad Request');
    // Named by the header (the Idempotency-Key's pattern bounds it too).
    expect([...new Set(body.issues.map((i) => i.path))]).toEqual([`headers.${c.header}`]);
  });

  it('takes every bounded header of the shopper read at its maximum together, with room to spare', async () => {
    const headers = Object.fromEntries(
      declared.filter((d) => d.operationId === 'getPublicInsurance').map((d) => [d.header, 'k'.repeat(d.max)]),
    );
    expect(Object.keys(headers)).toHaveLength(3);
    // A client's own headers beside them (cookies, tracing), 4 KiB of them.
    const res = await server.request(`/v1/quote/insurance?store_url=${owner.store.domain}&subtotal=100`, {
      headers: { ...headers, 'x-client-context': 'c'.repeat(4096) },
    });
    expect(res.status).toBe(200);
  });
});

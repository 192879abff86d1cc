import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * JSON bodies are read two ways (http/body.ts): plain UTF-8 bodies of a stated length
 * directly, everything else (gzip, other charsets, chunked) by body-parser. Both must give
 * the same answer to the same text.
 */
describe('JSON request bodies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const login = (body: Buffer, headers: Record<string, string> = {}) =>
    server.request('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: new Uint8Array(body),
    });
  const answer = async (res: Response) => {
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, message: body.message, issues: body.issues };
  };

  const BODIES: [string, Buffer][] = [
    ['an object', Buffer.from('{"email":"nobody@example.com","password":"wrong-password"}')],
    ['an object after whitespace', Buffer.from('\n\t {"email":"nobody@example.com","password":"x"}')],
    ['an object after a byte order mark', Buffer.from('\ufeff{"email":"nobody@example.com","password":"x"}')],
    ['an array', Buffer.from('[1, 2]')],
    ['a bare string (not strict JSON)', Buffer.from('"nobody@example.com"')],
    ['a bare number', Buffer.from('42')],
    ['truncated text', Buffer.from('{"email": ')],
    ['an escaped NUL', Buffer.from('{"email":"a\\u0000","password":"x"}')],
    [
      'an invalid UTF-8 byte in a string',
      Buffer.concat([Buffer.from('{"email":"a'), Buffer.of(0xff), Buffer.from('"}')]),
    ],
    ['whitespace only', Buffer.from('   ')],
  ];

  it.each(BODIES)('answers %s the same directly and through body-parser (gzip)', async (_name, body) => {
    const direct = await answer(await login(body));
    const inflated = await answer(await login(gzipSync(body), { 'content-encoding': 'gzip' }));
    expect(direct).toEqual(inflated);
    expect(direct.status).toBeGreaterThanOrEqual(400);
    expect(direct.status).toBeLessThan(500);
  });

  it('reads charset=utf-8 in any spelling directly, and refuses what body-parser refuses', async () => {
    const body = Buffer.from('{"email":"nobody@example.com","password":"x"}');
    for (const type of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      expect((await login(body, { 'content-type': type })).status).toBe(401);
    }
    expect((await login(body, { 'content-type': 'application/json; charset=latin1' })).status).toBe(415);
  });

  it('reads a body that arrives in pieces, answers a client that half-closes with its last piece, and survives one that never finishes', async () => {
    const { port } = new URL(server.baseUrl);
    const raw = (parts: string[], declared: number, end: boolean) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (d) => {
          text += d;
        });
        socket.on('close', () => resolve(text));
        socket.write(
          `POST /v1/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\nconnection: close\r\n\r\n`,
        );
        let i = 0;
        const next = () => {
          const part = parts[i++]!;
          // The last piece: half-close with it (the answer must still come), or hang up.
          if (i < parts.length) {
            socket.write(part);
            setTimeout(next, 20);
          } else if (end) socket.end(part);
          else socket.write(part, () => socket.destroy());
        };
        next();
      });
    const body = '{"email":"nobody@example.com","password":"x"}';
    const pieces = await raw([body.slice(0, 10), body.slice(10, 30), body.slice(30)], body.length, true);
    expect(pieces).toMatch(/^HTTP\/1\.1 401 /);
    await raw([body.slice(0, 10)], body.length, false);
    expect((await server.request('/healthz')).status).toBe(200);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextDelaySeconds } from '../../src/domain/webhooks/deliveries';
import { EXCERPT_BYTES, parseRetryAfter, sendWebhook } from '../../src/domain/webhooks/send';

/**
 * One attempt over real HTTP (D32, D35): the private-address refusal at delivery time, the
 * 64 KiB read limit, and the retry arithmetic.
 */
describe('sendWebhook', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  let streamClosed = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      if (req.url === '/endless') {
        // An answer that never ends: the sender must stop reading at 64 KiB.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(16 * 1024, 'a');
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => {
          streamClosed = true;
        });
        pump();
        return;
      }
      res.writeHead(200);
      res.end('fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const send = (url: string, allowPrivate: boolean, timeoutMs = 2000) =>
    sendWebhook({
      url,
      secrets: ['svc_whsec_test'],
      event: { id: 'evt_1', topic: 'claim/denied', createdAt: new Date(), body: {} },
      timeoutMs,
      allowPrivate,
    });

  it('refuses loopback and private addresses at delivery time unless allowed (D35)', async () => {
    const literal = await send(`http://127.0.0.1:${port}/literal`, false);
    expect(literal).toMatchObject({ statusCode: null, error: 'webhook URL points at a non-public address' });
    // A host name is resolved, checked, and the connection goes to the checked address only.
    const named = await send(`http://localhost:${port}/named`, false);
    expect(named).toMatchObject({ statusCode: null, error: 'localhost resolves to a non-public address' });
    const mapped = await send(`http://[::ffff:127.0.0.1]:${port}/mapped`, false);
    expect(mapped.error).toBe('webhook URL points at a non-public address');
    expect(hits).toEqual([]);
    const allowed = await send(`http://localhost:${port}/allowed`, true);
    expect(allowed).toMatchObject({ statusCode: 200, error: null, response: 'fine' });
    expect(hits).toEqual(['/allowed']);
  });

  it('reads at most 64 KiB of an answer and keeps 1 KiB of it', async () => {
    const started = Date.now();
    const result = await send(`http://127.0.0.1:${port}/endless`, true, 10_000);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(result.response).toHaveLength(EXCERPT_BYTES);
    await expect.poll(() => streamClosed, { timeout: 5000 }).toBe(true);
    // The sender hung up instead of reading on (the answer would never end).
  });

  it('reads Retry-After as seconds or a date, capped at 24 h', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(28);
    expect(parseRetryAfter('999999999')).toBe(86_400);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it('schedules the next attempt: the step plus up to 10% jitter, a longer Retry-After, null when done', () => {
    const schedule = [60, 300];
    expect(nextDelaySeconds(schedule, 1, null, () => 0)).toBe(60);
    expect(nextDelaySeconds(schedule, 1, null, () => 0.999)).toBeCloseTo(65.99, 1);
    expect(nextDelaySeconds(schedule, 2, null, () => 0)).toBe(300);
    expect(nextDelaySeconds(schedule, 3, null)).toBeNull();
    expect(nextDelaySeconds(schedule, 1, 600, () => 0)).toBe(600);
    expect(nextDelaySeconds(schedule, 1, 10, () => 0)).toBe(60);
    expect(nextDelaySeconds([86_400], 1, null, () => 0.5)).toBe(86_400);
  });
});

import { execFileSync } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServer, createAppServer } from '../../src/http/server';
import { fastPathStates } from '../../src/runtime/index';

const on = fastPathStates().find((s) => s.name === 'prebuilt-messages')!.on;

/**
 * runtime/prebuilt-messages.ts: requests and responses are born with the app's prototypes, so
 * Express's init step has nothing to change (main.ts, the test harness and the bench all serve
 * this way); with the device off, Express gives them its prototypes itself, answering the same.
 */
describe('the app server', () => {
  const app = express();
  const seen: { request: boolean; response: boolean; node: boolean }[] = [];
  let server: AppServer;
  let base: string;

  app.get('/hello', (req, res) => {
    res.status(200).json({ path: req.path, query: req.query, ip: req.ip });
  });
  beforeAll(async () => {
    // Listening before `serve`, as the harness does: the prototypes are taken when requests arrive.
    server = createAppServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.serve(app, (req, res) => {
      seen.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
        node: req instanceof IncomingMessage && res instanceof ServerResponse,
      });
      app(req, res);
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('hands Express requests and responses that already have its prototypes', async () => {
    const res = await fetch(`${base}/hello?a=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/hello', query: { a: '1' }, ip: '127.0.0.1' });
    expect(seen).toEqual([{ request: on, response: on, node: true }]);
  });

  it('answers what Express answers by itself: an unread body, an unknown path', async () => {
    const res = await fetch(`${base}/missing`, { method: 'POST', body: 'x'.repeat(100_000) });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Cannot POST /missing');
    expect(seen.at(-1)).toEqual({ request: on, response: on, node: true });
  });

  it.skipIf(!on)('keeps their fields in fast properties, not a dictionary (V8 sizes them from the device)', () => {
    const script = new URL('./fixtures/object-shapes.ts', import.meta.url).pathname;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ request: true, response: true });
  });
});

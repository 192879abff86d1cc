import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port';
import { installedAppWithToken } from '../harness/fixtures';
import { orderBody, writeOrders } from '../harness/load';
import { type ServiceProcess, startServiceProcess } from '../harness/processes';
import { cloneDatabase } from '../harness/server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The process's header timeout in this test (HEADERS_TIMEOUT_MS; 10 s by default). */
const HEADERS_TIMEOUT_MS = 1000;
/**
 * How long the process serves on after SIGTERM, as a load balancer's health interval would
 * want: long enough for this test's health check to notice on a busy machine.
 */
const SHUTDOWN_DELAY_MS = 3000;

/**
 * D46 for clients: a slowloris is cut off after HEADERS_TIMEOUT_MS while others are served;
 * SIGTERM under load turns /readyz 503 at once, serves on for SHUTDOWN_DELAY_MS, then answers
 * every request in flight, closes idle connections at once and exits 0 well inside its 10 s
 * cap, having lost no acknowledged write.
 */
describe('pnpm start with slow clients, then SIGTERM under load', () => {
  const secretKey = randomBytes(32);
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let api: ServiceProcess;
  let url: string;
  let port: number;
  let token: string;
  let email: string;

  beforeAll(async () => {
    database = await cloneDatabase();
    port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const installed = await installedAppWithToken(database.db, secretKey, url, 'drain', ['order:update']);
    token = installed.token;
    email = installed.user.email;
    api = await startServiceProcess({
      entry: 'main',
      databaseUrl: database.url,
      secretKey,
      port,
      env: {
        PUBLIC_BASE_URL: url,
        WEBHOOK_WORKERS: '0',
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
        // Eight writers on one token: the D4 limit is not what this test is about.
        RATE_LIMIT_TOKEN: '1000000',
      },
    });
  }, 90_000);

  afterAll(async () => {
    await api?.stop();
    await database?.drop();
  });

  it('closes connections that trickle their headers in, while other requests are answered', async () => {
    const slow: { socket: Socket; got: string; closedAfterMs?: number }[] = [];
    const openedAt = Date.now();
    for (let i = 0; i < 50; i++) {
      const socket = connect(port, '127.0.0.1');
      const entry: (typeof slow)[number] = { socket, got: '' };
      socket.on('data', (d) => {
        entry.got += d;
      });
      socket.on('close', () => {
        entry.closedAfterMs = Date.now() - openedAt;
      });
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ');
      slow.push(entry);
    }
    // One header byte every 100 ms from each, and ordinary requests beside them.
    const trickle = setInterval(() => {
      for (const s of slow) if (!s.socket.destroyed) s.socket.write('a');
    }, 100);
    const answers: number[] = [];
    while (Date.now() - openedAt < HEADERS_TIMEOUT_MS + 2500) {
      answers.push((await fetch(`${url}/healthz`)).status);
      await sleep(50);
    }
    clearInterval(trickle);
    expect(new Set(answers)).toEqual(new Set([200]));
    // Cut off after the header timeout (checked once a second), not held open.
    for (const s of slow) {
      expect(s.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
      expect(s.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 2500);
      expect(s.got).toMatch(/^HTTP\/1\.1 408 /);
      // In the D2 shape, as every answer of the process (http/client-errors.ts).
      expect(s.got).toContain('{"statusCode":408,');
    }
  }, 30_000);

  it('keeps an idle keep-alive connection past the header timeout (idle time is not a slow request)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; port: number }>((resolve, reject) =>
        http
          .get(`${url}/healthz`, { agent }, (res) => {
            const localPort = res.socket.localPort!;
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, port: localPort }));
          })
          .on('error', reject),
      );
    const first = await get();
    await sleep(HEADERS_TIMEOUT_MS + 1500);
    const second = await get();
    agent.destroy();
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.port).toBe(first.port);
  }, 30_000);

  it('on SIGTERM: /readyz 503 at once, serves through SHUTDOWN_DELAY_MS, answers what is in flight, closes idle connections, exits 0', async () => {
    const load = writeOrders({ url, token, writers: 8, prefix: 'drain' });
    // An idle keep-alive connection, as a load balancer holds them.
    const idle = connect(port, '127.0.0.1');
    idle.on('error', () => {});
    idle.resume();
    let idleClosedAt = 0;
    idle.on('close', () => {
      idleClosedAt = Date.now();
    });
    idle.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    // A login whose body is still arriving when the listener closes: it must still be answered.
    const slowLogin = connect(port, '127.0.0.1');
    let slowAnswer = '';
    slowLogin.on('data', (d) => {
      slowAnswer += d;
    });
    const slowDone = new Promise((resolve) => slowLogin.on('close', resolve));
    const body = JSON.stringify({ email, password: 'wrong password' });
    slowLogin.write(
      `POST /v1/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await sleep(700);

    const exited = new Promise<number | null>((resolve) => api.child.once('exit', resolve));
    const sigtermAt = Date.now();
    api.child.kill('SIGTERM');
    // A write sent during the delay, whatever the load's writers happen to be doing then.
    const during = fetch(`${url}/v1/orders/drain-during`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(orderBody('drain-during')),
    });
    setTimeout(() => slowLogin.write(body.slice(5)), SHUTDOWN_DELAY_MS + 300);
    // The load balancer's health check: once /readyz says 503, no new request is sent.
    let notReadyAt = 0;
    while (!notReadyAt) {
      if ((await fetch(`${url}/readyz`)).status === 503) notReadyAt = Date.now();
      else await sleep(20);
    }
    await load.stop();
    const code = await exited;
    const exitMs = Date.now() - sigtermAt;
    await slowDone;

    expect(code).toBe(0);
    // At once: within the delay, whatever the machine's load (about 0.1 s when idle).
    expect(notReadyAt - sigtermAt).toBeLessThan(SHUTDOWN_DELAY_MS);
    // Every write sent was answered (the listener was still open), those during the delay too.
    expect(load.answers.filter((a) => typeof a.status !== 'number')).toEqual([]);
    expect((await during).status).toBe(200);
    expect(slowAnswer).toMatch(/^HTTP\/1\.1 401 /);
    expect(slowAnswer.toLowerCase()).toContain('connection: close');
    // The delay, then no waiting for idle connections: well under the 10 s cap.
    expect(exitMs).toBeGreaterThanOrEqual(SHUTDOWN_DELAY_MS);
    expect(exitMs).toBeLessThan(SHUTDOWN_DELAY_MS + 4000);
    expect(idleClosedAt - sigtermAt).toBeGreaterThanOrEqual(SHUTDOWN_DELAY_MS);
    expect(idleClosedAt - sigtermAt).toBeLessThan(SHUTDOWN_DELAY_MS + 2000);
    const rows = await database.db
      .selectFrom('orders')
      .select('sourceOrderId')
      .where('sourceOrderId', 'in', [...load.acknowledged])
      .execute();
    expect(load.acknowledged.size).toBeGreaterThan(0);
    expect(rows.length).toBe(load.acknowledged.size);
    process.stdout.write(
      `[shutdown] ${JSON.stringify({ exitMs, notReadyMs: notReadyAt - sigtermAt, acknowledged: load.acknowledged.size })}\n`,
    );
  }, 60_000);
});

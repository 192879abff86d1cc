import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, type Db } from '../../src/db/database';
import { openEmbeddedPostgres } from '../../src/db/embedded';
import { recordRevocation } from '../../src/domain/auth/revocations';
import { updateRuleSet } from '../../src/domain/partner/pricing';
import { freePort } from '../../src/free-port';
import { installedAppWithToken } from '../harness/fixtures';
import { loginAcrossSigterm, NODE_ARGS, ROOT } from '../harness/processes';
import { sample, scrape } from '../harness/prometheus';

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
  requestId: string;
}

/**
 * `pnpm start` with WEB_CONCURRENCY=2 on an embedded PostgreSQL: one supervisor, two HTTP
 * workers on one port. Both answer; a revocation (D13) and a pricing change (D29) reach both;
 * METRICS_PORT serves the figures of both together; a killed worker is replaced; SIGTERM
 * drains every worker and then stops the database once.
 */
describe('pnpm start with WEB_CONCURRENCY=2', () => {
  const secret = randomBytes(32);
  let dataDir: string;
  let url: string;
  let metricsUrl: string;
  let supervisor: ChildProcess;
  let log = '';
  let db: Db;
  let storeDomain: string;
  let storeId: string;
  let clientId: string;
  let ownerEmail: string;
  let token: string;
  let jti: string;

  /** Every complete JSON log line so far. */
  const lines = () =>
    log
      .split('\n')
      .filter((l) => l.startsWith('{') && l.endsWith('}'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const listening = () => lines().filter((l) => l.msg === 'protection service listening');

  /** One request on a connection of its own, so the supervisor may hand it to either worker. */
  const fresh = (pathname: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const requestId = `wc-${randomBytes(6).toString('hex')}`;
      const req = http.get(`${url}${pathname}`, { agent: false, headers: { ...headers, 'x-request-id': requestId } });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers, requestId }));
      });
      req.on('error', reject);
    });

  /** The workers (by cluster id) whose access log holds these requests. */
  const workersOf = async (answers: Answer[]): Promise<Set<unknown>> => {
    const ids = new Set(answers.map((a) => a.requestId));
    await expect
      .poll(() => lines().filter((l) => ids.has(l.requestId as string)).length, { timeout: 10_000 })
      .toBe(ids.size);
    return new Set(lines().flatMap((l) => (ids.has(l.requestId as string) ? [l.worker] : [])));
  };

  const batch = async (n: number, pathname: string, headers?: Record<string, string>) => {
    const answers: Answer[] = [];
    for (let i = 0; i < n; i++) answers.push(await fresh(pathname, headers));
    return answers;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'protection-wc-'));
    await chmod(dataDir, 0o755);
    const port = await freePort();
    const metricsPort = await freePort();
    url = `http://127.0.0.1:${port}`;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const { DATABASE_URL: _ignored, ...rest } = process.env;
    supervisor = spawn(process.execPath, [...NODE_ARGS, 'server/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...rest,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        SECRET_KEY: secret.toString('base64url'),
        PUBLIC_BASE_URL: url,
        WEB_CONCURRENCY: '2',
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'info',
      },
    });
    supervisor.stdout!.on('data', (d) => {
      log += d;
    });
    supervisor.stderr!.on('data', (d) => {
      log += d;
    });
    await vi.waitFor(
      () => {
        if (supervisor.exitCode !== null) throw new Error(`exited: ${log}`);
        if (listening().length !== 2) throw new Error('workers not listening yet');
      },
      { timeout: 90_000, interval: 250 },
    );

    // Join the embedded database the supervisor started, as `pnpm cli` does.
    const pg = await openEmbeddedPostgres({ dataDir });
    expect(pg.owned).toBe(false);
    db = createDb(pg.url, { max: 2 });
    const installed = await installedAppWithToken(db, secret, url, `wc-${Date.now()}`);
    storeDomain = installed.store.domain;
    storeId = installed.store.id;
    ownerEmail = installed.user.email;
    token = installed.token;
    jti = installed.jti;
    clientId = installed.app.clientId;
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    if (supervisor && supervisor.exitCode === null) {
      await new Promise<void>((resolve) => {
        supervisor.once('exit', () => resolve());
        supervisor.kill('SIGTERM');
      });
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs two workers that both answer, keeping idle connections past a load balancer', async () => {
    const answers = await batch(20, '/v2/settings', { authorization: `Bearer ${token}` });
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const agent = new http.Agent({ keepAlive: true });
    const keepAlive = await new Promise<string | string[] | undefined>((resolve, reject) =>
      http.get(`${url}/healthz`, { agent }, (res) => resolve(res.resume().headers['keep-alive'])).on('error', reject),
    );
    agent.destroy();
    expect(keepAlive).toBe('timeout=65');
    expect(await workersOf(answers)).toEqual(new Set([1, 2]));
  });

  it('serves the figures of both workers together on METRICS_PORT, and none on the public port', async () => {
    const text = await scrape(metricsUrl);
    // Each worker answered about half; only their sum is 20.
    expect(sample(text, 'http_requests_total', { route: '/v2/settings', status: '200' })).toBe(20);
    expect(sample(text, 'webhook_queue_depth')).toBe(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect((await fresh('/metrics')).status).toBe(404);
  });

  it('a pricing change reaches both workers within seconds (D29)', async () => {
    const read = `/v1/quote/insurance?store_url=${storeDomain}`;
    const before = await batch(6, read);
    expect(before.every((a) => a.status === 200 && JSON.parse(a.body).automaticallyAddToCart === false)).toBe(true);
    const changedAt = Date.now();
    // Through the domain write, which announces the change to every process (D29).
    const shipping = await db
      .selectFrom('pricingRuleSets')
      .select('id')
      .where('type', '=', 'SHIPPING')
      .where('storeId', '=', storeId)
      .executeTakeFirstOrThrow();
    await updateRuleSet(db, storeId, shipping.id, ['SHIPPING'], { automaticallyAddToCart: true }, clientId, {
      type: 'app',
      id: clientId,
    });
    let after: Answer[] = [];
    await expect
      .poll(
        async () => {
          after = await batch(6, read);
          return after.every((a) => JSON.parse(a.body).automaticallyAddToCart === true);
        },
        { timeout: 15_000, interval: 200 },
      )
      .toBe(true);
    expect(Date.now() - changedAt).toBeLessThan(10_000);
    expect(await workersOf(after)).toEqual(new Set([1, 2]));
  }, 30_000);

  it('a revocation reaches both workers within a second (D13)', async () => {
    const revokedAt = Date.now();
    await recordRevocation(db, 'token', jti, new Date(Date.now() + 3600_000));
    let after: Answer[] = [];
    await expect
      .poll(
        async () => {
          after = await batch(6, '/v2/settings', { authorization: `Bearer ${token}` });
          return after.every((a) => a.status === 401);
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBe(true);
    expect(Date.now() - revokedAt).toBeLessThan(3_000);
    expect(await workersOf(after)).toEqual(new Set([1, 2]));
  }, 30_000);

  it('replaces a worker that dies', async () => {
    const victim = listening().find((l) => l.worker === 1)!.pid as number;
    process.kill(victim, 'SIGKILL');
    await expect.poll(() => listening().length, { timeout: 60_000, interval: 250 }).toBe(3);
    expect(lines().some((l) => l.msg === 'worker died; starting a replacement' && l.pid === victim)).toBe(true);
    const replacement = listening()[2]!;
    expect(replacement.worker).toBe(3);
    const answers = await batch(10, '/healthz');
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await workersOf(answers)).toEqual(new Set([2, 3]));
  }, 90_000);

  it('on SIGTERM drains every worker, then stops the embedded database once and exits 0', async () => {
    await db.destroy();
    const workerPids = listening()
      .slice(1)
      .map((l) => l.pid as number);
    // A request whose body is still arriving when SIGTERM comes must still get its answer.
    const answered = loginAcrossSigterm(url, supervisor, ownerEmail);
    const exited = new Promise<number | null>((resolve) => supervisor.once('exit', resolve));
    expect(await answered).toBe(401);
    expect(await exited).toBe(0);
    const stopped = lines().filter((l) => l.msg === 'stopped');
    expect(stopped.map((l) => l.worker ?? 'supervisor').sort()).toEqual([2, 3, 'supervisor']);
    expect(stopped.at(-1)!.worker).toBeUndefined();
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    for (const pid of workerPids) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});

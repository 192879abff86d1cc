import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRevocation } from '../src/domain/auth/revocations';
import { freePort } from '../src/free-port';
import { installedAppWithToken } from './harness/fixtures';
import { NODE_ARGS, ROOT } from './harness/processes';
import { cloneDatabase } from './harness/server';

/**
 * Two server processes on one database behave as one (D4, D13): a revocation recorded once
 * is refused by both within a second, and a per-IP limit counts the hits of both.
 */
describe('two server processes on one database', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  const processes: ChildProcess[] = [];
  const urls: string[] = [];
  const secret = randomBytes(32);
  const publicBaseUrl = 'http://api.test.local';
  let token: string;
  let jti: string;

  beforeAll(async () => {
    database = await cloneDatabase();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const child = spawn(process.execPath, [...NODE_ARGS, 'server/src/main.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          SECRET_KEY: secret.toString('base64url'),
          PUBLIC_BASE_URL: publicBaseUrl,
          LOG_LEVEL: 'warn',
        },
      });
      processes.push(child);
      urls.push(`http://127.0.0.1:${port}`);
    }
    for (const url of urls) {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const ok = await fetch(`${url}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    ({ token, jti } = await installedAppWithToken(database.db, secret, publicBaseUrl, 'two'));
  }, 60_000);

  afterAll(async () => {
    for (const child of processes) {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
    }
    await database.drop();
  });

  const settings = (url: string) => fetch(`${url}/v2/settings`, { headers: { authorization: `Bearer ${token}` } });

  it('both accept the token, then both refuse it within a second of its revocation', async () => {
    for (const url of urls) expect((await settings(url)).status).toBe(200);
    const revokedAt = Date.now();
    await recordRevocation(database.db, 'token', jti, new Date(Date.now() + 3600_000));
    const refusedAfter: number[] = [];
    for (const url of urls) {
      while ((await settings(url)).status !== 401) {
        if (Date.now() - revokedAt > 5_000) throw new Error(`${url} still accepts the revoked token`);
        await new Promise((r) => setTimeout(r, 20));
      }
      refusedAfter.push(Date.now() - revokedAt);
    }
    process.stdout.write(`revocation refused after ${refusedAfter.join(' ms and ')} ms\n`);
    expect(Math.max(...refusedAfter)).toBeLessThan(1000);
  }, 20_000);

  it('count one per-IP limit across both (30/minute on session verify)', async () => {
    // The limit counts per clock minute: start well inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${urls[i % 2]}/v1/oauth/session/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_token: 'x.y.z' }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.headers.get('ratelimit-limit')).toBe('30');
      }
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  }, 90_000);
});

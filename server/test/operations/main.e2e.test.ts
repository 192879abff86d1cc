import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkcePair, exchangeCode } from '../../../sdk/src/index';
import { freePort } from '../../src/free-port';
import { answered } from '../harness/fixtures';
import { loginAcrossSigterm, NODE_ARGS, ROOT, runScript } from '../harness/processes';
import { apiAt } from '../harness/server';

/**
 * README's first command, end to end: `pnpm start` on an embedded PostgreSQL in a fresh
 * DATA_DIR, `pnpm cli seed` joining that database from a second process, the public read of
 * the seeded store, a claim approved with a store credit whose e-mail lands in DATA_DIR/mail,
 * a graceful SIGTERM, and data surviving a restart.
 */
async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become ready');
}

describe('pnpm start on embedded PostgreSQL, with pnpm cli beside it', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let url: string;
  let server: ChildProcess | undefined;
  let serverLog = '';

  const start = async () => {
    serverLog = '';
    server = spawn(process.execPath, [...NODE_ARGS, 'server/src/main.ts'], { cwd: ROOT, env });
    const append = (d: Buffer) => {
      serverLog += d;
    };
    server.stdout!.on('data', append);
    server.stderr!.on('data', append);
    await waitReady(url, server);
  };
  const stop = () =>
    new Promise<number | null>((resolve) => {
      server!.once('exit', (code) => resolve(code));
      server!.kill('SIGTERM');
    });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'protection-e2e-'));
    await chmod(dataDir, 0o755);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const { DATABASE_URL: _ignored, ...rest } = process.env;
    env = { ...rest, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    await start();
  }, 90_000);

  afterAll(async () => {
    if (server && server.exitCode === null) await stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('generates the secret key and database password into DATA_DIR, never into the log', async () => {
    expect(existsSync(path.join(dataDir, 'secret-key'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(serverLog).toContain('protection service listening');
    expect(serverLog).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]+@/);
  });

  it('serves /openapi.json and /docs', async () => {
    const doc = await fetch(`${url}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    const page = await fetch(`${url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/docs/assets/redoc.standalone.js');
  });

  let seeded: { store: { id: string; domain: string }; user: { email: string; password: string } };

  it('pnpm cli seed joins the running embedded database', async () => {
    const result = await runScript(['scripts/cli.ts', 'seed', '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    seeded = JSON.parse(result.stdout);
    expect(seeded.store.domain).toBe('demo-store.localhost');
    expect(seeded.user.password.length).toBeGreaterThanOrEqual(16);
  }, 60_000);

  it('answers the public read of the seeded store', async () => {
    const res = await apiAt(url).public.getInsurance({ query: { store_url: seeded.store.domain, subtotal: 100 } });
    const body = answered(res, 200);
    expect(body.source).toBe('merchant');
    expect(body.quote?.premium).toBe(2);
  });

  it('as a development install, writes the store credit e-mail as a .eml file under DATA_DIR/mail (D42)', async () => {
    // Through HTTP only, as a new user would: log in, register an app, install it, file and approve.
    const login = answered(
      await apiAt(url).auth.login({ body: { email: seeded.user.email, password: seeded.user.password } }),
      200,
    );
    const merchant = apiAt(url, login.data.access_token);
    const redirectUri = 'https://app.example.com/callback';
    const app = answered(
      await merchant.apps.create({
        body: {
          name: 'Claims desk',
          redirectUris: [redirectUri],
          requestedScopes: ['order:update', 'claim:read', 'claim:update', 'claim:manage'],
          distribution: 'private',
        },
      }),
      201,
    ).data;
    const pkce = await createPkcePair();
    const consent = answered(
      await merchant.oauth.approve({
        body: {
          clientId: app.clientId,
          redirectUri,
          storeId: seeded.store.id,
          codeChallenge: pkce.challenge,
          codeChallengeMethod: pkce.method,
        },
      }),
      200,
    ).data;
    const tokens = await exchangeCode({
      baseUrl: url,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      code: new URL(consent.redirectUri).searchParams.get('code')!,
      redirectUri,
      codeVerifier: pkce.verifier,
    });
    const api = apiAt(url, tokens.accessToken);
    answered(
      await api.orders.upsert({
        params: { sourceOrderId: 'e2e-1' },
        body: {
          sourceOrderNumber: '#E2E-1',
          currency: 'USD',
          platformId: 'api',
          total: 40,
          sourceCreatedAt: '2026-01-31T12:00:00Z',
        },
      }),
      200,
    );
    const filed = await api.claims.file({
      params: { sourceOrderId: 'e2e-1' },
      body: {
        email: 'shopper@example.com',
        salesChannel: 'ONLINE',
        claimCategory: 'SHIPPING',
        fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
        resolution: { desiredMethod: 'STORE_CREDIT' },
      },
    });
    answered(filed, 200);
    const claimId = filed.headers.get('location')!.split('/').pop()!;
    const approved = answered(
      await api.claims.approve({
        params: { claimId },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 5 }] },
      }),
      200,
    );
    const code = approved.claimStoreCredits[0]!.code;

    const mailDir = path.join(dataDir, 'mail');
    const withCode = async () => {
      const files = existsSync(mailDir) ? (await readdir(mailDir)).filter((f) => f.endsWith('.eml')) : [];
      const mails = await Promise.all(files.map(async (f) => simpleParser(await readFile(path.join(mailDir, f)))));
      return mails.filter((mail) => mail.subject?.startsWith('Your store credit') && mail.text?.includes(code)).length;
    };
    await expect.poll(withCode, { timeout: 20_000, interval: 250 }).toBe(1);
    const record = answered(await api.claims.get({ params: { claimId } }), 200);
    expect(record.claimStoreCredits[0]!.emailStatus).toBe('NOT_SENT');
  }, 60_000);

  it('on SIGTERM finishes the request in flight, then exits 0 and stops the embedded database', async () => {
    const answered = loginAcrossSigterm(url, server!, seeded.user.email);
    const exited = new Promise<number | null>((resolve) => server!.once('exit', resolve));
    expect(await answered).toBe(401);
    expect(await exited).toBe(0);
    expect(serverLog).toContain('stopped');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 30_000);

  it('keeps the data between runs', async () => {
    await start();
    const res = await fetch(`${url}/v1/quote/insurance?storeId=${seeded.store.id}`);
    expect(res.status).toBe(200);
    const again = await runScript(['scripts/cli.ts', 'seed', '--json'], env);
    expect(JSON.parse(again.stdout).store.id).toBe(seeded.store.id);
  }, 90_000);
});

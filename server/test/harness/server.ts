import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { type Client, createClient } from '../../../sdk/src/index';
import { type AppDeps, createApp, stopApp } from '../../src/app';
import type { Config } from '../../src/config';
import { createDb, type Db } from '../../src/db/database';
import { TRUST_LOOPBACK } from '../../src/http/client-ip';
import { RATE_LIMITS } from '../../src/http/rate-limit';
import { createAppServer } from '../../src/http/server';
import { setServerTimeouts } from '../../src/http/timeouts';
import { createLogger } from '../../src/logger';
import { ServiceMetrics } from '../../src/metrics';
import { TEMPLATE_DB, withDatabase } from './database-url';
import { checkingAnswers } from './openapi-answers';

export interface TestServer {
  baseUrl: string;
  db: Db;
  /** The test file's database, for processes the test starts beside this server. */
  databaseUrl: string;
  config: Config;
  /** The app's request figures (serve them with `serveMetrics` to scrape them). */
  metrics: ServiceMetrics;
  /**
   * The typed client on the contract (the SDK's, without retries), as `token` (an access or
   * dashboard token) or anonymous: checked bodies and status-discriminated answers. Raw
   * `request` stays for what no client can send (hostile input, odd encodings).
   */
  api(token?: string): Client;
  /** fetch relative to the server, JSON body helper included. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The SDK's typed client for the service at `baseUrl`, without retries, so that a test sees
 * every answer the server gives.
 */
export function apiAt(baseUrl: string, token?: string): Client {
  // No Api-Version: the calling app's pin answers (the latest unless a test pins it, D44).
  return createClient({ baseUrl, accessToken: token, retry: false, apiVersion: null });
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: undefined,
    databasePooler: 'none',
    databaseDirectUrl: undefined,
    dataDir: os.tmpdir(),
    publicBaseUrl: 'http://localhost',
    deploymentEnvironment: 'test',
    logLevel: 'silent',
    secretKey: randomBytes(32),
    webhookAllowPrivateUrls: true,
    // In-process test servers deliver nothing unless a test asks for workers.
    webhookWorkers: 0,
    webhookTimeoutMs: 2000,
    webhookRetrySchedule: [1, 1, 1],
    eventRetentionDays: 30,
    // No SMTP server and no .eml files unless a test asks (D42).
    smtpUrl: undefined,
    mailFrom: 'claims@shop.test',
    mailRetrySchedule: [1, 1],
    mailTimeoutMs: 5000,
    mailDir: undefined,
    rateLimits: RATE_LIMITS,
    trustProxy: TRUST_LOOPBACK,
    webConcurrency: 1,
    metricsPort: undefined,
    keepAliveTimeoutMs: 65_000,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    shutdownDelayMs: 0,
    logFormat: 'json',
    fileStorage: { kind: 'local', dir: path.join(os.tmpdir(), `files-${randomBytes(6).toString('hex')}`) },
    ...overrides,
  };
}

/** A fresh database cloned from the migrated template, for one test file. */
export async function cloneDatabase(
  onQuery?: (sql: string) => void,
): Promise<{ url: string; db: Db; drop(): Promise<void> }> {
  const adminUrl = inject('postgresUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = createDb(adminUrl, { max: 1 });
  await sql`create database ${sql.id(name)} template ${sql.id(TEMPLATE_DB)}`.execute(admin);
  await admin.destroy();
  const url = withDatabase(adminUrl, name);
  const db = createDb(url, { max: 5, onQuery });
  return {
    url,
    db,
    async drop() {
      await db.destroy();
      const a = createDb(adminUrl, { max: 1 });
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(a);
      await a.destroy();
    },
  };
}

/**
 * The real Express app over HTTP on a loopback port, with response validation on, and every
 * answer checked against the committed openapi.json (./openapi-answers.ts).
 */
export async function startTestServer(
  overrides: Partial<Config> = {},
  deps: Pick<AppDeps, 'rateLimits' | 'metrics'> & { logger?: AppDeps['logger']; onQuery?: (sql: string) => void } = {},
): Promise<TestServer> {
  const database = await cloneDatabase(deps.onQuery);
  const config = testConfig(overrides);
  const logger = deps.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  // Listen first, so the app's issuer (PUBLIC_BASE_URL) is the address tests call.
  const server = createAppServer();
  setServerTimeouts(server, config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.publicBaseUrl = baseUrl;
  const metrics = deps.metrics ?? new ServiceMetrics(database.db);
  const app = createApp({ ...deps, db: database.db, config, logger, metrics, responseValidation: true });
  server.serve(app, checkingAnswers(inject('openapiAnswersDir'), app));
  return {
    baseUrl,
    db: database.db,
    databaseUrl: database.url,
    config,
    metrics,
    api: (token) => apiAt(baseUrl, token),
    request(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      // A FormData body (an upload, D56) goes as multipart, its boundary chosen by fetch.
      if (json instanceof FormData) return fetch(baseUrl + path, { ...rest, headers, body: json });
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(baseUrl + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      stopApp(app);
      await database.drop();
    },
  };
}

/**
 * Another app on the database of `first`, as a second server process would be (D13, D29): its
 * own connections, revocation feed, change listener and caches, the same keys and issuer.
 */
export async function startSecondServer(
  first: TestServer,
): Promise<{ baseUrl: string; api(token?: string): Client; close(): Promise<void> }> {
  const db = createDb(first.databaseUrl, { max: 5 });
  const server = createAppServer();
  setServerTimeouts(server, first.config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const app = createApp({
    db,
    config: first.config,
    logger,
    metrics: new ServiceMetrics(db),
    responseValidation: true,
  });
  server.serve(app, checkingAnswers(inject('openapiAnswersDir'), app));
  return {
    baseUrl,
    api: (token) => apiAt(baseUrl, token),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      stopApp(app);
      await db.destroy();
    },
  };
}

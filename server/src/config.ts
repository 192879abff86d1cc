import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { FileStorageConfig } from './domain/files/storage';
import { compileTrustProxy, type TrustProxy } from './http/client-ip';
import { RATE_LIMITS, type RateLimits } from './http/rate-limit';

/** Comma-separated seconds between attempts (D35, D42). */
const retrySchedule = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const steps = text.split(',').map((s) => Number(s.trim()));
      if (steps.length === 0 || steps.length > 50 || steps.some((n) => !Number.isFinite(n) || n < 0 || n > 86_400)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated seconds, each 0..86400, at most 50' });
        return z.NEVER;
      }
      return steps;
    });

/** An unset variable; compose's `${NAME:-}` gives an empty string for one. */
const unsetWhenEmpty = (v: unknown) => (v === '' ? undefined : v);

/**
 * Where a deployment runs, named in the description of the server its document serves, so a
 * reader knows whether they are looking at production (OWASP API9:2023, inventory).
 */
export const DEPLOYMENT_ENVIRONMENTS = ['local', 'test', 'sandbox', 'staging', 'production'] as const;
export type DeploymentEnvironment = (typeof DEPLOYMENT_ENVIRONMENTS)[number];

/** A D4 limit in requests per minute. */
const perMinute = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

const ZEnv = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    DATABASE_URL: z.string().url().optional(),
    // D48: what DATABASE_URL names; with `transaction`, a pooler in transaction mode.
    DATABASE_POOLER: z.enum(['none', 'transaction']).default('none'),
    // D48: where what needs a session connects (migrations, LISTEN, the job queue).
    DATABASE_DIRECT_URL: z.preprocess(unsetWhenEmpty, z.string().url().optional()),
    DATA_DIR: z.string().min(1).default('.data'),
    PUBLIC_BASE_URL: z.string().url().optional(),
    DEPLOYMENT_ENVIRONMENT: z.preprocess(unsetWhenEmpty, z.enum(DEPLOYMENT_ENVIRONMENTS).optional()),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SECRET_KEY: z
      .string()
      .regex(/^[A-Za-z0-9+/=_-]{43,}$/, 'must be at least 32 bytes, base64 or base64url')
      .optional(),
    WEBHOOK_ALLOW_PRIVATE_URLS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // D35 delivery knobs.
    WEBHOOK_WORKERS: z.coerce.number().int().min(0).max(1000).default(10),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    WEBHOOK_RETRY_SCHEDULE: retrySchedule('60,300,1800,7200,21600,43200,86400'),
    // D48: days an event whose deliveries are all final is kept (a pending one is kept whatever its age).
    EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    // D42 e-mail to shoppers: credentials go in the URL (smtp://user:password@host:587).
    SMTP_URL: z.preprocess(
      unsetWhenEmpty,
      z
        .string()
        .url()
        .refine((v) => /^smtps?:\/\//i.test(v), 'must be an smtp:// or smtps:// URL')
        .optional(),
    ),
    MAIL_FROM: z.preprocess(unsetWhenEmpty, z.string().max(254).email().optional()),
    MAIL_RETRY_SCHEDULE: retrySchedule('30,120,600,3600,21600'),

    // Operating the service (README "Running in production").
    RATE_LIMIT_TOKEN: perMinute(RATE_LIMITS.token),
    RATE_LIMIT_AUTH: perMinute(RATE_LIMITS.auth),
    RATE_LIMIT_SESSION_VERIFY: perMinute(RATE_LIMITS.sessionVerify),
    RATE_LIMIT_PUBLIC: perMinute(RATE_LIMITS.public),
    TRUST_PROXY: z
      .string()
      .default('loopback')
      .transform((text, ctx) => {
        try {
          return compileTrustProxy(text);
        } catch (err) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
          return z.NEVER;
        }
      }),
    WEB_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(1),
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    // Above common load balancers' idle timeouts (60 s), so the balancer closes first.
    KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(65_000),
    // D46: a slow client gets this long to send its headers, and REQUEST_TIMEOUT_MS for all of its request.
    HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    // D46: on SIGTERM, how long to keep serving (with /readyz 503) before the listener closes.
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
    LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
    // D56: where uploaded files' bytes live: the data folder, or any S3-compatible store.
    FILE_STORAGE: z
      .string()
      .default('local')
      .refine((v) => v === 'local' || /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(v), {
        message: 'must be local or s3://bucket/prefix',
      }),
    S3_ENDPOINT: z.preprocess(unsetWhenEmpty, z.string().url().optional()),
    S3_REGION: z.preprocess(unsetWhenEmpty, z.string().max(64).optional()),
    S3_ACCESS_KEY_ID: z.preprocess(unsetWhenEmpty, z.string().optional()),
    S3_SECRET_ACCESS_KEY: z.preprocess(unsetWhenEmpty, z.string().optional()),
    S3_FORCE_PATH_STYLE: z.preprocess(unsetWhenEmpty, z.enum(['true', 'false']).optional()),
  })
  .superRefine((e, ctx) => {
    if (e.REQUEST_TIMEOUT_MS < e.HEADERS_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['REQUEST_TIMEOUT_MS'], message: 'must be at least HEADERS_TIMEOUT_MS' });
    }
    // D48: a transaction pooler cannot carry LISTEN, the job queue or migrations.
    if (e.DATABASE_POOLER === 'transaction' && !e.DATABASE_DIRECT_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_DIRECT_URL'],
        message: 'is required when DATABASE_POOLER=transaction (D48)',
      });
    }
    if (e.DATABASE_POOLER === 'transaction' && !e.DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'is required when DATABASE_POOLER=transaction: it names the pooler (D48)',
      });
    }
    // D42: the sender's address is the operator's to choose, never guessed for a real server.
    if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_SECRET_ACCESS_KEY'],
        message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (D56)',
      });
    }
    if (e.SMTP_URL && !e.MAIL_FROM) {
      ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'is required when SMTP_URL is set (D42)' });
    }
  });

/** Every environment variable the service reads (deploy files may set no other). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ZEnv.innerType().shape);

export interface Config {
  port: number;
  host: string;
  /** Absent: the embedded PostgreSQL in `dataDir` is used. */
  databaseUrl: string | undefined;
  /** D48: `transaction`: `databaseUrl` is a transaction pooler (no named statements, no session state). */
  databasePooler: 'none' | 'transaction';
  /** D48: for what needs a session (migrations, LISTEN, the job queue); absent: `databaseUrl`. */
  databaseDirectUrl: string | undefined;
  dataDir: string;
  publicBaseUrl: string;
  /** Named in the served documents' server description. */
  deploymentEnvironment: DeploymentEnvironment;
  logLevel: z.infer<typeof ZEnv>['LOG_LEVEL'];
  /** Server key: signs dashboard tokens, derives per-app keys (D5). Never logged. */
  secretKey: Buffer;
  webhookAllowPrivateUrls: boolean;
  /** Concurrent webhook deliveries in this process; 0: the process delivers nothing (D35). */
  webhookWorkers: number;
  /** How long a delivery attempt may take (D32, D35). */
  webhookTimeoutMs: number;
  /** Seconds between attempts; its length + 1 is the number of attempts (D35). */
  webhookRetrySchedule: number[];
  /** D48: days a webhook event whose deliveries are all final is kept. */
  eventRetentionDays: number;
  /** D42: the SMTP server; absent, no e-mail leaves (`NOT_SENT`). Holds credentials: never logged. */
  smtpUrl: string | undefined;
  /** D42: the sender's address (the store's name is the display name). */
  mailFrom: string;
  /** D42: seconds between attempts of one e-mail; `FAILED` after the last. */
  mailRetrySchedule: number[];
  /** How long one SMTP attempt may take (connection, greeting, each reply). */
  mailTimeoutMs: number;
  /** D42: development without SMTP_URL writes each e-mail as a `.eml` file here; else undefined. */
  mailDir: string | undefined;
  /** Requests per minute (D4). */
  rateLimits: RateLimits;
  /** Which peers may name the client in X-Forwarded-For. */
  trustProxy: TrustProxy;
  /** HTTP worker processes, run by the supervisor (supervisor.ts). */
  webConcurrency: number;
  /** Port of the Prometheus endpoint; absent: no metrics endpoint. */
  metricsPort: number | undefined;
  /** Idle keep-alive connections are closed after this long. */
  keepAliveTimeoutMs: number;
  /** A request's headers must have arrived this long after its first byte (D46), else 408. */
  headersTimeoutMs: number;
  /** A request (headers and body) must have arrived this long after its first byte, else 408. */
  requestTimeoutMs: number;
  /** On SIGTERM, how long the process keeps serving with /readyz 503 before it stops accepting (D46). */
  shutdownDelayMs: number;
  logFormat: 'json' | 'pretty';
  /** D56: where files' bytes are stored. */
  fileStorage: FileStorageConfig;
}

/** D56: FILE_STORAGE and the S3_* variables, read together. */
function fileStorageOf(e: z.infer<typeof ZEnv>, dataDir: string): FileStorageConfig {
  if (e.FILE_STORAGE === 'local') return { kind: 'local', dir: path.join(dataDir, 'files') };
  const url = new URL(e.FILE_STORAGE);
  const prefix = decodeURIComponent(url.pathname.replace(/^\/+/, ''));
  return {
    kind: 's3',
    bucket: url.hostname,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION ?? 'us-east-1',
    credentials:
      e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
        : undefined,
    // Self-hosted stores (MinIO, SeaweedFS, Garage) address buckets by path.
    forcePathStyle: e.S3_FORCE_PATH_STYLE ? e.S3_FORCE_PATH_STYLE === 'true' : e.S3_ENDPOINT !== undefined,
  };
}

/**
 * Reads the configuration from the environment. Without SECRET_KEY, a key is generated once
 * into DATA_DIR/secret-key (mode 0600) so tokens survive restarts.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ZEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  // D42: a development install is the one whose operator gave no DATABASE_URL (the embedded
  // database). Decided here, from the operator's settings, in every process alike: the
  // supervisor hands its children the database it opened by another name (supervisor.ts).
  const development = e.DATABASE_URL === undefined;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePooler: e.DATABASE_POOLER,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    dataDir,
    publicBaseUrl,
    deploymentEnvironment: e.DEPLOYMENT_ENVIRONMENT ?? (development ? 'local' : 'production'),
    logLevel: e.LOG_LEVEL,
    secretKey: e.SECRET_KEY ? decodeKey(e.SECRET_KEY) : readOrCreateSecretKey(dataDir),
    webhookAllowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
    webhookWorkers: e.WEBHOOK_WORKERS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookRetrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `no-reply@${new URL(publicBaseUrl).hostname}`,
    mailRetrySchedule: e.MAIL_RETRY_SCHEDULE,
    mailTimeoutMs: 30_000,
    mailDir: development && !e.SMTP_URL ? path.join(dataDir, 'mail') : undefined,
    rateLimits: {
      token: e.RATE_LIMIT_TOKEN,
      auth: e.RATE_LIMIT_AUTH,
      sessionVerify: e.RATE_LIMIT_SESSION_VERIFY,
      public: e.RATE_LIMIT_PUBLIC,
    },
    trustProxy: e.TRUST_PROXY,
    webConcurrency: e.WEB_CONCURRENCY,
    metricsPort: e.METRICS_PORT,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    logFormat: e.LOG_FORMAT,
    fileStorage: fileStorageOf(e, dataDir),
  };
}

function decodeKey(text: string): Buffer {
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length < 32) throw new Error('invalid configuration:\n  SECRET_KEY: must be at least 32 bytes');
  return key;
}

function readOrCreateSecretKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secret-key');
  try {
    return decodeKey(readFileSync(file, 'utf8').trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    // `wx`: when two processes start together, the first key written wins.
    writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return decodeKey(readFileSync(file, 'utf8').trim());
  }
}

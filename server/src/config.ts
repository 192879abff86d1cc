import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const ZEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  PUBLIC_BASE_URL: z.string().url().optional(),
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
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('60,300,1800,7200,21600,43200,86400')
    .transform((text, ctx) => {
      const steps = text.split(',').map((s) => Number(s.trim()));
      if (steps.length === 0 || steps.length > 50 || steps.some((n) => !Number.isFinite(n) || n < 0 || n > 86_400)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated seconds, each 0..86400, at most 50' });
        return z.NEVER;
      }
      return steps;
    }),
});

export interface Config {
  port: number;
  host: string;
  /** Absent: the embedded PostgreSQL in `dataDir` is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  publicBaseUrl: string;
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
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    secretKey: e.SECRET_KEY ? decodeKey(e.SECRET_KEY) : readOrCreateSecretKey(dataDir),
    webhookAllowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS,
    webhookWorkers: e.WEBHOOK_WORKERS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    webhookRetrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
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

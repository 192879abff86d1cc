/**
 * The full service (createApp over Postgres) for benchmarks. Env: BENCH_DATABASE_URL, PORT,
 * BENCH_SECRET_KEY (base64url, so the benchmark can mint tokens the server accepts).
 * The D4 limits are raised out of the way: they are still counted on every request, but a
 * load test from one address would otherwise measure 429s.
 */
import { createServer } from 'node:http';
import os from 'node:os';
import { createApp } from '../../server/src/app';
import { createDb } from '../../server/src/db/database';
import { createLogger } from '../../server/src/logger';

const db = createDb(process.env.BENCH_DATABASE_URL!);
const port = Number(process.env.PORT);
const unlimited = 1_000_000_000;
const app = createApp({
  db,
  logger: createLogger('silent'),
  rateLimits: { token: unlimited, auth: unlimited, sessionVerify: unlimited, public: unlimited },
  config: {
    port,
    host: '127.0.0.1',
    databaseUrl: process.env.BENCH_DATABASE_URL,
    dataDir: os.tmpdir(),
    // BENCH_ISSUER: several processes sharing one issuer accept the same tokens.
    publicBaseUrl: process.env.BENCH_ISSUER ?? `http://127.0.0.1:${port}`,
    logLevel: 'silent',
    secretKey: Buffer.from(process.env.BENCH_SECRET_KEY!, 'base64url'),
    webhookAllowPrivateUrls: true,
    webhookWorkers: 0,
    webhookTimeoutMs: 5000,
    webhookRetrySchedule: [60, 300, 1800, 7200, 21600, 43200, 86400],
  },
});
createServer(app).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));

/**
 * The full service (createApp over Postgres) for benchmarks. Env: BENCH_DATABASE_URL, PORT,
 * BENCH_SECRET_KEY (base64url, so the benchmark can mint tokens the server accepts),
 * BENCH_LOG_LEVEL (default silent; info logs every request as production does),
 * OTEL_EXPORTER_OTLP_ENDPOINT (unset: no tracing, as in the service).
 * The D4 limits are raised out of the way: they are still counted on every request, but a
 * load test from one address would otherwise measure 429s.
 */
import { createApp } from '../../server/src/app';
import { loadConfig } from '../../server/src/config';
import { createDb } from '../../server/src/db/database';
import { createAppServer } from '../../server/src/http/server';
import { createLogger } from '../../server/src/logger';
import { reportFastPaths } from '../../server/src/runtime/index';
import { startTracing } from '../../server/src/telemetry';

const unlimited = '1000000000';
const config = loadConfig({
  PORT: process.env.PORT,
  HOST: '127.0.0.1',
  DATABASE_URL: process.env.BENCH_DATABASE_URL,
  // D48: BENCH_DATABASE_POOLER=transaction with BENCH_DATABASE_DIRECT_URL (scripts/bench/pooler.ts).
  DATABASE_POOLER: process.env.BENCH_DATABASE_POOLER,
  DATABASE_DIRECT_URL: process.env.BENCH_DATABASE_DIRECT_URL,
  // BENCH_ISSUER: several processes sharing one issuer accept the same tokens.
  PUBLIC_BASE_URL: process.env.BENCH_ISSUER ?? `http://127.0.0.1:${process.env.PORT}`,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
  SECRET_KEY: process.env.BENCH_SECRET_KEY,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  RATE_LIMIT_TOKEN: unlimited,
  RATE_LIMIT_AUTH: unlimited,
  RATE_LIMIT_SESSION_VERIFY: unlimited,
  RATE_LIMIT_PUBLIC: unlimited,
  WEBHOOK_WORKERS: '0',
  // D56: where uploads are stored (scripts/bench/files.ts gives a scratch folder).
  DATA_DIR: process.env.BENCH_DATA_DIR,
});
const logger = createLogger(config.logLevel);
// FAST_PATHS, as the service reads it (scripts/bench/fast-paths.ts turns devices off one by one).
reportFastPaths(logger);
// OTEL_EXPORTER_OTLP_ENDPOINT, as the service reads it: set, every request is traced and exported.
await startTracing(logger);
const db = createDb(config.databaseUrl!, {
  transactionPooler: config.databasePooler === 'transaction',
  directConnectionString: config.databaseDirectUrl,
});
const app = createApp({ db, logger, config });
createAppServer()
  .serve(app)
  .listen(config.port, config.host, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));

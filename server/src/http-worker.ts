import type { Logger } from 'pino';
import { createApp, stopApp } from './app';
import { startChild } from './child-start';
import type { Config } from './config';
import { batchesWritten } from './db/committed-batches';
import { DRAIN_MS, drainable } from './http/drain';
import { createAppServer } from './http/server';
import { setServerTimeouts } from './http/timeouts';
import { type Delivery, startDelivery } from './job-runner';
import { stopOnce } from './supervisor';

/**
 * One HTTP worker of `pnpm start` (main.ts): serves the API and, unless WEBHOOK_WORKERS=0,
 * delivers webhooks and e-mail. Loaded only by the workers, not by their supervisor.
 */
export async function serveHttp(config: Config, logger: Logger): Promise<void> {
  const { tracing, database, metrics } = await startChild(config, logger);

  let shuttingDown = false;
  const app = createApp({ db: database.db, config, logger, metrics, isShuttingDown: () => shuttingDown });
  const server = createAppServer().serve(app);
  setServerTimeouts(server, config);
  const connections = drainable(server);
  // D35: WEBHOOK_WORKERS=0 makes this process API-only (`pnpm worker` delivers alone).
  const delivery: Delivery | null =
    config.webhookWorkers > 0
      ? await startDelivery({
          config,
          logger,
          connectionString: database.url,
          transactionPooler: database.transactionPooler,
          directConnectionString: database.directUrl,
          metrics,
        })
      : null;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  // Logged before any request can be answered: once /readyz says 200, this line is out.
  logger.info(
    {
      url: config.publicBaseUrl,
      docs: `${config.publicBaseUrl}/docs`,
      database: database.description,
      webhookWorkers: config.webhookWorkers,
      pid: process.pid,
    },
    'protection service listening',
  );

  // D46: /readyz answers 503 at once; the process serves on for SHUTDOWN_DELAY_MS while the
  // load balancer notices, then stops accepting and lets what is in flight finish.
  stopOnce(logger, async (reason) => {
    shuttingDown = true;
    logger.info({ reason, delayMs: config.shutdownDelayMs }, 'shutting down: finishing in-flight requests');
    if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
    await Promise.all([connections.drain(DRAIN_MS), delivery?.stop()]);
    // Jobs of what the last requests committed (the sweeps would queue them otherwise).
    await batchesWritten(database.db);
    stopApp(app);
    await database.close().catch((err) => logger.warn({ err }, 'database did not close cleanly'));
    await tracing?.shutdown();
  });
}

import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { createApp, stopApp } from './app';
import type { Config } from './config';
import { batchesWritten } from './db/committed-batches';
import { DRAIN_MS, drainable } from './http/drain';
import { createAppServer } from './http/server';
import { setServerTimeouts } from './http/timeouts';
import { type Delivery, startDelivery } from './job-runner';
import { useProcessLogger } from './lib/request-context';
import { ServiceMetrics } from './metrics';
import { openSupervisorDatabase, stopOnce, takeOverSignals } from './supervisor';
import { startTracing } from './telemetry';

/**
 * One HTTP worker of `pnpm start` (main.ts): serves the API and, unless WEBHOOK_WORKERS=0,
 * delivers webhooks and e-mail. Loaded only by the workers, not by their supervisor.
 */
export async function serveHttp(config: Config, logger: Logger): Promise<void> {
  takeOverSignals();
  useProcessLogger(logger);
  // Before the database: its pools trace their statements only when tracing runs.
  const tracing = await startTracing(logger);
  const database = await openSupervisorDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  const metrics = new ServiceMetrics(database.db, { processFigures: true });
  // The supervisor asks every worker for its figures and serves their sum; constructing an
  // AggregatorRegistry is what makes a worker answer those requests.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);

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

import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config';
import { startDelivery } from './job-runner';
import { useProcessLogger } from './lib/request-context';
import { ServiceMetrics } from './metrics';
import { openSupervisorDatabase, stopOnce, takeOverSignals } from './supervisor';
import { startTracing } from './telemetry';

/**
 * The delivering process of `pnpm worker` (worker.ts): webhooks and e-mail, nothing served.
 * Loaded only by that process, not by its supervisor.
 */
export async function deliver(config: Config, logger: Logger): Promise<void> {
  takeOverSignals();
  useProcessLogger(logger);
  const tracing = await startTracing(logger);
  const database = await openSupervisorDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  // Attempt and job figures, served by the supervisor on METRICS_PORT (with the queue's).
  const metrics = new ServiceMetrics(database.db, { processFigures: true });
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
  const delivery = await startDelivery({
    config,
    logger,
    metrics,
    connectionString: database.url,
    transactionPooler: database.transactionPooler,
    directConnectionString: database.directUrl,
  });
  logger.info(
    { workers: config.webhookWorkers, database: database.description, pid: process.pid },
    'delivering webhooks',
  );
  stopOnce(logger, async (reason) => {
    logger.info({ reason }, 'shutting down: finishing attempts in flight');
    await delivery.stop();
    await database.close().catch((err) => logger.warn({ err }, 'database did not close cleanly'));
    await tracing?.shutdown();
  });
}

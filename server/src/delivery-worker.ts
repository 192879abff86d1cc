import type { Logger } from 'pino';
import { startChild } from './child-start';
import type { Config } from './config';
import { startDelivery } from './job-runner';
import { stopOnce } from './supervisor';

/**
 * The delivering process of `pnpm worker` (worker.ts): webhooks and e-mail, nothing served.
 * Loaded only by that process, not by its supervisor.
 */
export async function deliver(config: Config, logger: Logger): Promise<void> {
  const { tracing, database, metrics } = await startChild(config, logger);
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

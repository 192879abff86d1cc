import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { loadConfig } from './config';
import { startDelivery } from './job-runner';
import { useProcessLogger } from './lib/request-context';
import { createLogger } from './logger';
import { ServiceMetrics } from './metrics';
import { reportFastPaths } from './runtime/index';
import { openSupervisorDatabase, stopOnce, supervise, takeOverSignals } from './supervisor';
import { startTracing } from './telemetry';

/** Past the longest an attempt may take, how long its record may take after SIGTERM. */
const RECORD_MS = 10_000;

/**
 * `pnpm worker`: delivers webhooks and e-mail to shoppers and serves nothing, so an operator
 * can scale delivery apart from the API (D35, D42). A supervisor (./supervisor.ts) opens the
 * database and runs one delivering process, replacing it should it die (D46).
 * WEBHOOK_WORKERS concurrent attempts; SIGTERM lets attempts in flight end.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.webhookWorkers === 0) throw new Error('WEBHOOK_WORKERS is 0: this process would deliver nothing');
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  reportFastPaths(logger);
  if (cluster.isPrimary)
    await supervise(config, logger, {
      children: 1,
      drainMs: config.webhookTimeoutMs + RECORD_MS,
      what: 'delivery',
      metrics: true,
    });
  else await deliver(logger.child({ worker: cluster.worker!.id }));

  async function deliver(logger: ReturnType<typeof createLogger>): Promise<void> {
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
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

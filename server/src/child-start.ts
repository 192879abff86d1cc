import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config';
import { useProcessLogger } from './lib/request-context';
import { ServiceMetrics } from './metrics';
import { openSupervisorDatabase, takeOverSignals } from './supervisor';
import { startTracing } from './telemetry';

/**
 * What every child of a supervisor (an HTTP worker, the delivering process) does before its
 * own work: it takes over SIGTERM and SIGINT, logs as itself, starts tracing (before the
 * database: its pools trace their statements only when tracing runs), opens the database its
 * supervisor migrated, and counts its figures for the supervisor to serve on METRICS_PORT
 * (the supervisor asks every child for them; constructing an AggregatorRegistry is what makes
 * a child answer).
 */
export async function startChild(config: Config, logger: Logger) {
  takeOverSignals();
  useProcessLogger(logger);
  const tracing = await startTracing(logger);
  const database = await openSupervisorDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  const metrics = new ServiceMetrics(database.db, { processFigures: true });
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
  return { tracing, database, metrics };
}

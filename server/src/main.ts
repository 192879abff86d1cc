import cluster from 'node:cluster';
import { loadConfig } from './config';
import { DRAIN_MS } from './http/drain';
import { createLogger } from './logger';
import { reportFastPaths } from './runtime/index';
import { supervise } from './supervisor';

/**
 * `pnpm start`: a supervisor (./supervisor.ts) that opens the database and runs
 * WEB_CONCURRENCY HTTP workers on one port, replacing any that dies. Each worker serves the
 * API and, unless WEBHOOK_WORKERS=0, delivers webhooks and e-mail. All shared state is in
 * PostgreSQL (D4, D13, D29), so the workers behave as one server.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  reportFastPaths(logger);
  if (cluster.isPrimary)
    await supervise(config, logger, {
      children: config.webConcurrency,
      drainMs: config.shutdownDelayMs + DRAIN_MS,
      what: 'api',
      metrics: true,
    });
  // The service itself is loaded by the workers only: the supervisor stays small and starts fast.
  else await (await import('./http-worker')).serveHttp(config, logger.child({ worker: cluster.worker!.id }));
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

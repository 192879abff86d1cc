import cluster from 'node:cluster';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { reportFastPaths } from './runtime/index';
import { supervise } from './supervisor';

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
  // The job runner is loaded by the delivering process only: the supervisor stays small.
  else await (await import('./delivery-worker')).deliver(config, logger.child({ worker: cluster.worker!.id }));
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

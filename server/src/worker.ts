import { loadConfig } from './config';
import { openDatabase } from './db/open';
import { startDelivery } from './domain/events/queue';
import { createLogger } from './logger';

/**
 * `pnpm worker`: delivers webhooks and e-mail to shoppers and serves nothing, so an operator
 * can scale delivery apart from the API (D35, D42). WEBHOOK_WORKERS concurrent attempts;
 * SIGTERM lets attempts in flight end.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.webhookWorkers === 0) throw new Error('WEBHOOK_WORKERS is 0: this process would deliver nothing');
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const database = await openDatabase(config, (m) => logger.debug({ postgres: m }, 'postgres'));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.removeAllListeners(signal);
  const delivery = await startDelivery({ config, logger, connectionString: database.url });
  logger.info({ workers: config.webhookWorkers, database: database.description }, 'delivering webhooks');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing attempts in flight');
    await delivery.stop();
    await database.close();
    logger.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

import { Logger as QueueLogger } from 'graphile-worker';
import type { Logger } from 'pino';

/** graphile-worker's log lines, through pino (or, without one, warnings and errors to stderr). */
export function queueLogger(logger?: Logger): QueueLogger {
  return new QueueLogger((scope) => (level, message, meta) => {
    if (logger) {
      const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
      logger[method]({ queue: scope, ...meta }, message);
    } else if (level === 'error' || level === 'warning') {
      process.stderr.write(`graphile-worker ${level}: ${message}\n`);
    }
  });
}

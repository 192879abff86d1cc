import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './db/unavailable';
import { describeError } from './http/errors';

/**
 * What a process does with a fault nothing else caught (D46).
 * - A database connection lost or refused, outside any request (a background read, the job
 *   runner's bookkeeping): logged, and the process carries on. Connections are replaced on
 *   the next use, so nothing in the process is left broken.
 * - Anything else: the process may be in a state nobody planned for. Logged with what is
 *   known, then `fail` drains it (requests in flight finish) and it exits 1, so that its
 *   supervisor starts a fresh one. Never swallowed.
 */
export function handleProcessFaults(logger: Logger, fail: (reason: string) => void): void {
  const fault = (kind: 'unhandled rejection' | 'uncaught exception') => (reason: unknown) => {
    const err = describeError(reason);
    if (isDatabaseUnavailable(reason)) {
      logger.warn({ err, kind }, 'database unavailable outside a request; carrying on');
      return;
    }
    logger.error({ err, kind }, `${kind}: draining and exiting so that a fresh process takes over`);
    fail(kind);
  };
  process.on('unhandledRejection', fault('unhandled rejection'));
  process.on('uncaughtException', fault('uncaught exception'));
}

import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * One line per request. Only method, path (no query string), status, duration and request
 * id are logged: never headers or bodies, so no Authorization value, secret or token can
 * reach a log line.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => logAccess(logger, req.id, req.method, req.path, res.statusCode, start));
    next();
  };
}

export function logAccess(
  logger: Logger,
  requestId: string,
  method: string,
  path: string,
  status: number,
  start: bigint,
): void {
  const level = status >= 500 ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  logger[level]({ requestId, method, path, status, ms: Math.round(ms * 10) / 10 }, 'request');
}

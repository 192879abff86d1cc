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
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      logger[level](
        { requestId: req.id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}

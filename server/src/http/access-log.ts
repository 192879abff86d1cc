import type { AppRoute } from '@ts-rest/core';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { type ServiceMetrics, UNMATCHED_ROUTE } from '../metrics';

/** Requests slower than this are logged at warn. */
const SLOW_REQUEST_MS = 1000;

/** An unexpected failure, as the error handler hands it to the access log. */
export interface LoggedError {
  name?: string;
  message?: string;
  stack?: string;
}

export interface Finished {
  requestId: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** The contract's path template (or an operational path): the metrics label. */
  route: string;
  status: number;
  start: bigint;
  /** The dated API version that served a versioned route (D44). */
  apiVersion?: string;
  error?: LoggedError;
}

/** Records one answered request: a log line and the request metrics. */
export type RequestLog = (finished: Finished) => void;

/**
 * One line per request. Only method, path (no query string), status, duration, request id
 * and, on a versioned route, the API version that served it (D44) are logged: never headers or bodies, so no Authorization value, secret or token can
 * reach a log line. A 5xx is logged once, at error, with the failure behind it (scrubbed of
 * anything shaped like a credential); a request over SLOW_REQUEST_MS at warn.
 */
export function requestLog(logger: Logger, metrics: ServiceMetrics): RequestLog {
  return ({ requestId, method, path, route, status, start, apiVersion, error }) => {
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    metrics.request(method, route, status, ms / 1000);
    // A 503 is the database out of reach (D46) or shutting down: expected, and counted by the
    // thousand during an outage, so it is a warning; any other 5xx is a fault.
    const unavailable = status === 503;
    const slow = ms > SLOW_REQUEST_MS;
    const level = status >= 500 && !unavailable ? 'error' : unavailable || slow ? 'warn' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      requestId,
      method,
      path,
      status,
      ms: Math.round(ms * 10) / 10,
      ...(apiVersion ? { apiVersion } : {}),
    };
    if (error) {
      logger[level]({ ...line, err: scrubError(error) }, 'request failed');
    } else {
      logger[level](line, slow && level === 'warn' ? 'slow request' : 'request');
    }
  };
}

/**
 * Express side of the access log: the route label comes from the ts-rest route that matched,
 * or from the page route (`res.locals.pageRoute`, set by pages/index.ts).
 */
export function accessLog(log: RequestLog, operationalPaths: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () =>
      log({
        requestId: req.id,
        method: req.method,
        // A page's path is logged as its template: a claim link's path is a credential (D41).
        path: (res.locals.pageRoute as string | undefined) ?? req.path,
        route: (res.locals.pageRoute as string | undefined) ?? routeLabel(req, operationalPaths),
        status: res.statusCode,
        start,
        apiVersion: res.locals.apiVersion as string | undefined,
        error: res.locals.error as LoggedError | undefined,
      }),
    );
    next();
  };
}

function routeLabel(req: Request & { tsRestRoute?: AppRoute }, operationalPaths: ReadonlySet<string>): string {
  if (req.tsRestRoute) return req.tsRestRoute.path;
  return operationalPaths.has(req.path) ? req.path : UNMATCHED_ROUTE;
}

/** Tokens (`svc_at_…`, `svc_rt_…`, `svc_secret_…`), JWTs and connection-string passwords. */
const CREDENTIAL = /\bsvc_[a-z]+_[\w.-]+|\beyJ[\w-]*\.[\w-]*\.[\w-]*|(?<=:\/\/[^:/\s@]*:)[^@\s]+(?=@)/g;

function scrubError(error: LoggedError): LoggedError {
  const scrub = (text?: string) => text?.replace(CREDENTIAL, '[redacted]');
  return { name: error.name, message: scrub(error.message), stack: scrub(error.stack) };
}

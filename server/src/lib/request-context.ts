import { AsyncLocalStorage } from 'node:async_hooks';
import { context } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { tracingOn } from './tracing';

/**
 * What every log line a request causes says of it, wherever the line is written: the request
 * id (the one answered in `x-request-id`), and once the auth gate knows them the calling app
 * (its client id), the store and the store member (a staff or dashboard token). Ids only:
 * never a token, a secret or a shopper's details.
 */
export interface RequestContext {
  requestId: string;
  clientId?: string;
  storeId?: string;
  userId?: string;
  /** The logger of the app serving the request: where `logger()` sends the lines of the code below the routes. */
  logger?: Logger;
  /** The trace of the request, when tracing is on (`lib/tracing.ts`). */
  traceId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `handle(req, res)` with `context` as the request context of everything it causes. */
export function inRequest<A, B>(context: RequestContext, handle: (a: A, b: B) => void, a: A, b: B): void {
  storage.run(context, handle, a, b);
}

/**
 * `fn`, to be called back later in the request being served now: run then in its request
 * context and, with tracing on, in its trace. For a callback its connection makes (the body's
 * bytes are read in the connection's async context, not the request's). The context is entered
 * again rather than bound with `AsyncLocalStorage.bind`, whose `AsyncResource` for each request
 * cost about 35 µs of the service's CPU a request with a body (a third of the quote's).
 */
export function inThisRequest<F extends (...args: never[]) => void>(fn: F): F {
  const c = storage.getStore();
  if (!c) return fn;
  const entered = ((...args: Parameters<F>) => storage.run(c, fn, ...args)) as F;
  return tracingOn() ? context.bind(context.active(), entered) : entered;
}

/** The context of the request being served, or undefined outside any (jobs, sweeps, start-up). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * The pino mixin of every logger (../logger.ts): the request's fields on each line written
 * while it is being served. A fresh object each time, since pino merges the line's own fields
 * into it.
 */
export function requestLogFields(): object {
  const c = storage.getStore();
  if (!c) return {};
  return { requestId: c.requestId, clientId: c.clientId, storeId: c.storeId, userId: c.userId, traceId: c.traceId };
}

let processLogger: Logger | undefined;

/** The process's logger, for lines of the code below the routes written outside any request. */
export function useProcessLogger(logger: Logger): void {
  processLogger = logger;
}

/**
 * The logger of code that is handed none (domain rules, the database layer): the serving
 * app's during a request, else the process's; undefined when neither is known (a script).
 */
export function logger(): Logger | undefined {
  return storage.getStore()?.logger ?? processLogger;
}

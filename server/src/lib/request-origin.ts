import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where a request came from, as the audit log records it (D53): the person's address and
 * browser, and the request id that ties the line to the access log. Set once per request by
 * the HTTP layer (http/origin.ts) around the handler, so domain code that records an act
 * reads it here instead of having it passed down through every call.
 */
export interface RequestOrigin {
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

const NONE: RequestOrigin = { requestId: null, ip: null, userAgent: null };
const store = new AsyncLocalStorage<RequestOrigin>();

/** Runs `work` with `origin` as the current request's origin. */
export function withRequestOrigin<T>(origin: RequestOrigin, work: () => T): T {
  return store.run(origin, work);
}

/** The origin of the request being handled; nulls outside a request (the CLI, jobs). */
export function requestOrigin(): RequestOrigin {
  return store.getStore() ?? NONE;
}

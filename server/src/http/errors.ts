import {
  type ApiVersion,
  downError,
  type ErrorStatus,
  LATEST_API_VERSION,
  STATUS_NAMES,
  type TError,
} from '@protection-service/contract';
import type { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';
import { isConcurrencyAbort, isDatabaseUnavailable } from '../db/unavailable';
import { Refusal, type RefusalKind } from '../lib/refusal';
import type { LoggedError } from './access-log';

interface Issue {
  path: string;
  message: string;
}

/**
 * A failure of the request pipeline itself (authentication, scopes, rate limits, body limits,
 * validation), built by http/ and app.ts; the domain refuses with a `Refusal` instead
 * (lib/refusal.ts), which `refusalAnswer` turns into one of these. The error handler renders
 * it in the D2 shape. `headers` carries what RFC 6750 / D4 want alongside (WWW-Authenticate,
 * Retry-After).
 */
export class HttpError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly options: { issues?: Issue[]; headers?: Record<string, string>; error?: string } = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** PostgreSQL text cannot hold U+0000; the body parser refuses it with this message. */
export const NUL_MESSAGE = 'strings may not contain NUL (U+0000) characters';
export const MALFORMED_BODY = 'malformed JSON body';
export const INCOMPLETE_BODY = 'incomplete request body';

export const badRequest = (message: string, issues?: Issue[]) => new HttpError(400, message, { issues });

/** D2 body for a status. */
export function errorBody(status: ErrorStatus, message: string, issues?: Issue[]): TError {
  return { statusCode: status, message, error: STATUS_NAMES[status], ...(issues ? { issues } : {}) };
}

/** Zod issues as D2 `issues`, prefixed with the request part they came from. */
export function zodIssues(error: ZodError, prefix: string): Issue[] {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path].join('.'),
    message: i.message,
  }));
}

/**
 * Final error handler: every failure leaves as D2 JSON. Unknown errors are answered as a bare
 * 500 (no stack, no SQL, no message from inside) and handed to the access log, which logs
 * them once with the request id.
 */
export function errorHandler(logger: Logger, oauthPaths: ReadonlySet<string> = new Set()): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      // The answer is half written and no access-log line will follow: say so here.
      logger.error(
        { requestId: req.id, method: req.method, path: req.path, err: describeError(err) },
        'request failed after its answer began',
      );
      req.socket.destroy();
      return;
    }
    const mapped = mapError(err);
    if (!mapped) {
      // The access log writes the one line of this 5xx, with the error (access-log.ts).
      res.locals.error = describeError(err);
      answer(res, 500, errorBody(500, 'internal server error'));
      return;
    }
    setErrorHeaders(res, mapped);
    const body: TError & { error_description?: string } = errorBody(
      mapped.status,
      mapped.message,
      mapped.options.issues,
    );
    if (mapped.options.error) body.error = mapped.options.error;
    // D2: the OAuth token and revoke endpoints answer RFC 6749 §5.2 codes plus
    // `error_description`, for failures raised before their handler too (malformed body, 429).
    if (oauthPaths.has(req.path)) {
      // A body that cannot be read (too large, unsupported encoding) is a malformed request too.
      if ([400, 413, 415].includes(mapped.status) && !mapped.options.error) body.error = 'invalid_request';
      body.error_description = mapped.message;
    }
    answer(res, mapped.status, body);
  };
}

/**
 * Writes a D2 error, as the version that serves the request renders it (D44): a versioned
 * route of an older version answers its errors through that version's changes (`downError`).
 * The version gate names the version of a versioned route (`res.locals.apiVersion`).
 */
function answer(res: Response, status: ErrorStatus, body: TError): void {
  const version = res.locals.apiVersion as ApiVersion | undefined;
  const rendered = version && version !== LATEST_API_VERSION ? downError(version, { status, body }).body : body;
  res.status(status).json(rendered);
}

const REFUSAL_STATUS: Record<RefusalKind, ErrorStatus> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  missing: 404,
  conflict: 409,
  too_large: 422,
  payload_too_large: 413,
  unsupported_type: 415,
  unprocessable: 422,
  unavailable: 503,
  not_implemented: 501,
};

/** A domain refusal as the D2 answer: the one place refusals become statuses. */
function refusalAnswer(err: Refusal): HttpError {
  return new HttpError(REFUSAL_STATUS[err.kind], err.message, {
    ...(err.detail.issues ? { issues: err.detail.issues } : {}),
    ...(err.detail.oauthCode ? { error: err.detail.oauthCode } : {}),
    ...(err.detail.headers ? { headers: err.detail.headers } : {}),
  });
}

/** Seconds a client is asked to wait while the database cannot be reached (D46). */
const UNAVAILABLE_RETRY_AFTER_S = 2;

/** D46: a 503 the client may simply send again, a moment later. */
export const unavailable = (message: string) =>
  new HttpError(503, message, { headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) } });

/** The headers a refusal carries (D46's Retry-After, D4's limits), on whatever answers it: JSON or a page. */
export function setErrorHeaders(res: Response, err: HttpError): void {
  for (const [name, value] of Object.entries(err.options.headers ?? {})) res.setHeader(name, value);
}

/**
 * Domain refusals, errors thrown by body-parser and friends, the database being out of reach
 * (D46: 503 with Retry-After, never 500) and a transaction it rolled back for a concurrent one
 * (503 too), mapped onto HttpError; null for the unknown.
 */
export function mapError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof Refusal) return refusalAnswer(err);
  if (isDatabaseUnavailable(err)) return unavailable('the service cannot reach its database; try again shortly');
  if (isConcurrencyAbort(err))
    return unavailable('the request met a concurrent change and was not applied; send it again');
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { type?: string; status?: number };
  switch (e.type) {
    case 'entity.parse.failed':
      return badRequest((err as Error).message === NUL_MESSAGE ? NUL_MESSAGE : MALFORMED_BODY);
    case 'entity.too.large':
      return new HttpError(413, 'request body exceeds 1 MiB');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, 'unsupported body encoding');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return badRequest(INCOMPLETE_BODY);
    case 'parameters.too.many':
      return new HttpError(413, 'too many form parameters');
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.status in STATUS_NAMES) {
    const status = e.status as ErrorStatus;
    return new HttpError(status, STATUS_NAMES[status].toLowerCase());
  }
  return null;
}

export function describeError(err: unknown): LoggedError {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { message: String(err) };
}

/** A request ts-rest found invalid (params, headers, query or body): 400 with every issue (D2). */
export function requestValidationError(err: RequestValidationError): HttpError {
  const issues = [
    ...(err.pathParams ? zodIssues(err.pathParams, 'params') : []),
    ...(err.headers ? zodIssues(err.headers, 'headers') : []),
    ...(err.query ? zodIssues(err.query, 'query') : []),
    ...(err.body ? zodIssues(err.body, 'body') : []),
  ];
  const first = issues[0];
  return new HttpError(400, first ? `invalid request: ${first.path}: ${first.message}` : 'invalid request', { issues });
}

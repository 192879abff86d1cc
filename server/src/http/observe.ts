import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AppRoute } from '@ts-rest/core';
import type { Logger } from 'pino';
import { inRequest, type RequestContext } from '../lib/request-context';
import { tracer, tracingOn } from '../lib/tracing';
import { requestIdOf } from './request-id';

/**
 * Every request served in a request context of its own (`lib/request-context.ts`): its id,
 * later its caller, and the app's logger, so that every log line it causes, in the routes,
 * the domain or the database layer, names it. `logger`: the app's (`app.locals.logger`).
 *
 * With tracing on (`telemetry.ts`), each request is also a server span: a W3C `traceparent`
 * it carries makes it a child of the caller's span, and the answer names the span in a
 * `traceresponse` header (W3C Trace Context level 2) for the caller to find it. Its queries,
 * and the webhook deliveries and jobs it causes, are spans of the same trace.
 */
export function observed(listener: RequestListener, logger: Logger | undefined): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const requestContext: RequestContext = { requestId: requestIdOf(req.headers), logger };
    if (!tracingOn()) return inRequest(requestContext, listener, req, res);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(
      req.method ?? 'HTTP',
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': req.method,
          // The path alone: a query string may hold what a log or a trace must not.
          'url.path': pathOf(req.url),
          'http.request.header.x-request-id': requestContext.requestId,
        },
      },
      parent,
    );
    const spanContext = span.spanContext();
    requestContext.traceId = spanContext.traceId;
    res.setHeader('traceresponse', `00-${spanContext.traceId}-${spanContext.spanId}-0${spanContext.traceFlags & 1}`);
    res.once('close', () => endRequestSpan(span, req, res, requestContext));
    context.with(trace.setSpan(parent, span), () => inRequest(requestContext, listener, req, res));
  };
}

function pathOf(url: string | undefined): string {
  const q = url?.indexOf('?') ?? -1;
  return q === -1 ? (url ?? '') : url!.slice(0, q);
}

/** The request's span, named by its route template once known (`GET /v1/orders/:sourceOrderId`), with its caller. */
function endRequestSpan(span: Span, req: IncomingMessage, res: ServerResponse, c: RequestContext): void {
  const route =
    ((res as { locals?: { pageRoute?: string } }).locals?.pageRoute as string | undefined) ??
    (req as { tsRestRoute?: AppRoute }).tsRestRoute?.path;
  if (route) {
    span.updateName(`${req.method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttributes({
    'http.response.status_code': res.statusCode,
    ...(c.clientId ? { 'app.client_id': c.clientId } : {}),
    ...(c.storeId ? { 'app.store_id': c.storeId } : {}),
    ...(c.userId ? { 'app.user_id': c.userId } : {}),
  });
  if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  if (!res.writableFinished) span.setAttribute('http.response.aborted', true);
  span.end();
}

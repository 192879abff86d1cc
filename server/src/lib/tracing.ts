import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Tracing through OpenTelemetry's API, which is a no-op until ../telemetry.ts registers the
 * SDK (only when OTEL_EXPORTER_OTLP_ENDPOINT is set). Every helper here first asks
 * `tracingOn()`, so that with tracing off a request, a query or a delivery costs one boolean
 * test and nothing else: no span objects, no context switches.
 */

let on = false;

/** Called by ../telemetry.ts once the SDK is the global tracer provider. */
export function tracingStarted(): void {
  on = true;
}

/** Whether spans are recorded and exported in this process. */
export function tracingOn(): boolean {
  return on;
}

export const tracer = () => trace.getTracer('protection-service');

export { SpanKind };

/**
 * The W3C `traceparent` of the active span, for work that leaves the request (an outbox row,
 * a job's payload) to carry, so that the work's spans join the request's trace; null with
 * tracing off or outside any span.
 */
export function currentTraceparent(): string | null {
  if (!on) return null;
  const span = trace.getActiveSpan();
  if (!span) return null;
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-0${c.traceFlags & 1}`;
}

/** The context a `traceparent` names (as `currentTraceparent` wrote it), or undefined. */
export function contextOf(traceparent: string | null | undefined): Context | undefined {
  if (!on || !traceparent) return undefined;
  const extracted = propagation.extract(ROOT_CONTEXT, { traceparent });
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

/** The link to a `traceparent`'s span, or undefined. */
export function linkTo(traceparent: string | null | undefined): Link | undefined {
  const c = contextOf(traceparent);
  const spanContext = c && trace.getSpanContext(c);
  return spanContext ? { context: spanContext } : undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context unless given. */
  parent?: Context;
  links?: Link[];
  /**
   * Only within a trace: no span when nothing is active (the background sweeps start no
   * trace of their own every second).
   */
  onlyWithin?: boolean;
}

/**
 * Runs `work` in a span of its own, ended when it settles (an error recorded on it); with
 * tracing off, just runs it. `work` may set more attributes on the span it is handed.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span?: Span) => Promise<T>): Promise<T> {
  if (!on) return work();
  const parent = options.parent ?? context.active();
  if (options.onlyWithin && !trace.getSpan(parent)) return work();
  const span = tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs a queued job in a span of its own: a child of the trace named by its payload's
 * `traceparent` when it carries one (the request that queued it), else the root of a trace.
 */
export function inJobSpan<T>(task: string, payload: unknown, work: () => Promise<T>): Promise<T> {
  if (!on) return work();
  const traceparent = (payload as { traceparent?: unknown } | null)?.traceparent;
  return inSpan(
    `job ${task}`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextOf(typeof traceparent === 'string' ? traceparent : null) ?? ROOT_CONTEXT,
      attributes: { 'job.task': task },
    },
    work,
  );
}

/**
 * Marks a span failed by the kind of `err` (its code, a PostgreSQL SQLSTATE for one, or its
 * name), never its message: a database error's text can quote the values of a row.
 */
export function failed(span: Span, err: unknown): void {
  const kind = (err as { code?: unknown })?.code ?? (err instanceof Error ? err.name : 'error');
  span.setAttribute('error.type', String(kind));
  span.setStatus({ code: SpanStatusCode.ERROR, message: String(kind) });
}

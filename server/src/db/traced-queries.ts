import { context, type Span, SpanKind, trace } from '@opentelemetry/api';
import type pg from 'pg';
import { failed, tracer, tracingOn } from '../lib/tracing';

/**
 * A span for every statement a pooled client sends within a trace (a request's, a job's, a
 * delivery's), named by its first word and holding its text, never its values: the text has
 * only placeholders (`$1`), the values are what a shopper or a partner sent.
 *
 * This is the one place every statement passes: Kysely's queries, `prepared` statements and
 * `inOneTrip`'s first, one-by-one trip all end in the client's `query`. It wraps the `query`
 * that `runtime/pg-wire.ts` may have replaced (installed after it, on the same `connect`), so it
 * sees statements as the application sent them: a named statement is one span, a transaction's
 * held `begin` an instant one (its round trip is the next statement's), and a pipelined trip
 * (one `pg.Query` carrying several statements) is spanned by `inOneTrip` itself, which knows
 * its statements. Installed only when tracing is on: off, the client is left as it was.
 */
export function traceQueries(client: pg.PoolClient): void {
  if (!tracingOn()) return;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const first = args[0];
    const text = typeof first === 'string' ? first : undefined;
    const active = context.active();
    // A submittable (the pipelined trip) or a statement outside any trace goes as it is.
    if (text === undefined || !trace.getSpan(active)) return query(...args);
    const span = statementSpan(text);
    let result: unknown;
    try {
      result = context.with(trace.setSpan(active, span), () => query(...args));
    } catch (err) {
      failed(span, err);
      span.end();
      throw err;
    }
    if (!(result instanceof Promise)) {
      span.end();
      return result;
    }
    return result.then(
      (r: { rowCount?: number | null }) => {
        if (typeof r?.rowCount === 'number') span.setAttribute('db.response.returned_rows', r.rowCount);
        span.end();
        return r;
      },
      (err: unknown) => {
        failed(span, err);
        span.end();
        throw err;
      },
    );
  };
}

/** The span of one statement (or of several sent as one, `statements`). */
export function statementSpan(text: string, statements = 1): Span {
  const operation = /^\s*(?:\/\*.*?\*\/\s*)?(\w+)/s.exec(text)?.[1]?.toLowerCase() ?? 'query';
  return tracer().startSpan(`pg ${operation}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system.name': 'postgresql',
      'db.operation.name': operation,
      'db.query.text': text,
      ...(statements > 1 ? { 'db.operation.batch.size': statements } : {}),
    },
  });
}

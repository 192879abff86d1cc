import type { Logger } from 'pino';
import { tracingStarted } from './lib/tracing';

/** What a process that started tracing must do before it exits: export the spans it holds. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's SDK in this process when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: spans batched and exported by OTLP over HTTP
 * (JSON) to it, W3C trace context read from and written to requests and webhook deliveries,
 * the context carried through AsyncLocalStorage. Unset (or `OTEL_SDK_DISABLED=true`), nothing
 * is loaded: the SDK's modules are imported here only, on demand, and the API stays the no-op
 * that `lib/tracing.ts` does not even call.
 *
 * The exporter reads the standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`,
 * `…_TIMEOUT`, `…_COMPRESSION`, the `…_TRACES_…` forms); `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` name the service; `OTEL_TRACES_SAMPLER_ARG` is the share of
 * traces begun here that are kept (a request that arrives with a `traceparent` follows its
 * caller's decision); `OTEL_BSP_SCHEDULE_DELAY` how long spans wait to be sent in a batch.
 */
export async function startTracing(logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true') return undefined;
  if (!URL.canParse(endpoint)) throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT must be a URL (http://collector:4318)');
  const [api, sdk, { OTLPTraceExporter }, { AsyncLocalStorageContextManager }, core, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  const provider = new sdk.TracerProvider({
    resource: resources
      .resourceFromAttributes({ 'service.name': 'protection-service' })
      .merge(resources.detectResources({ detectors: [resources.envDetector] })),
    sampler: new sdk.ParentBasedSampler({
      root: new sdk.TraceIdRatioBasedSampler(Number.isFinite(ratio) ? Math.min(Math.max(ratio, 0), 1) : 1),
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 5000) || 5000,
      }),
    ],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  // The exporter's own failures (the collector out of reach) are said at warn, once each.
  api.diag.setLogger(diagnostics(logger), api.DiagLogLevel.WARN);
  tracingStarted();
  logger.info({ endpoint: new URL(endpoint).origin, samplerRatio: ratio }, 'tracing: spans exported by OTLP');
  return { shutdown: () => provider.shutdown().catch(() => {}) };
}

/** OpenTelemetry's diagnostics as the process's log lines, each message once. */
function diagnostics(logger: Logger) {
  const said = new Set<string>();
  const once = (level: 'warn' | 'error') => (message: string) => {
    if (said.has(message)) return;
    said.add(message);
    logger[level]({ otel: true }, `tracing: ${message}`);
  };
  const nothing = () => {};
  return { error: once('error'), warn: once('warn'), info: nothing, debug: nothing, verbose: nothing };
}

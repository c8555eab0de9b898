// Tracing of one process part, when OTEL_EXPORT_ENABLED: its own OTLP exporter, and the observers
// that turn request or engine events into spans. Off, nothing is made and nothing subscribes, so
// the publishers build no events, and the OpenTelemetry SDK is not even loaded (it takes seconds
// to import on a busy machine), hence the dynamic import.
import type { Config } from '../config/index.js';
import type { RequestScope } from '../protocols/index.js';

/** Which part of the process traces: it names the default service. */
export type TracedPart = 'frontend' | 'mocker';

export interface PartTracing {
  /** Stops observing, sends the spans still batched, then stops the exporter. */
  stop(): Promise<void>;
}

const NOT_TRACING: PartTracing = { stop: () => Promise.resolve() };

async function exporterFor(config: Config, part: TracedPart) {
  const tracing = await import('../observability/tracing/index.js');
  const exporter = tracing.startOtlpTracing({
    serviceName: config.otelServiceName ?? `dynamo-ts-${part}`,
    tracesEndpoint: config.otelExporterOtlpTracesEndpoint,
  });
  return { tracing, exporter };
}

/** Spans of the requests of `scope` (a frontend's), when tracing is on. */
export async function traceFrontend(config: Config, scope: RequestScope): Promise<PartTracing> {
  if (!config.otelExportEnabled) return NOT_TRACING;
  const { tracing, exporter } = await exporterFor(config, 'frontend');
  return stopping(new tracing.RequestTracing(exporter.tracer).observe(scope), exporter.shutdown);
}

/** Spans of the process's engine requests (a worker's), when tracing is on. */
export async function traceEngines(config: Config): Promise<PartTracing> {
  if (!config.otelExportEnabled) return NOT_TRACING;
  const { tracing, exporter } = await exporterFor(config, 'mocker');
  return stopping(tracing.traceEngineRequests(exporter.tracer), exporter.shutdown);
}

function stopping(unsubscribe: () => void, shutdown: () => Promise<void>): PartTracing {
  return {
    stop() {
      unsubscribe();
      return shutdown();
    },
  };
}

// Tracing of one process part, when OTEL_EXPORT_ENABLED: its own OTLP exporter, and the observers
// that turn request or engine events into spans. Off, nothing is made and nothing subscribes, so
// the publishers build no events.
import type { Config } from '../config/index.js';
import { RequestTracing, startOtlpTracing, traceEngineRequests } from '../observability/index.js';
import type { RequestScope } from '../protocols/index.js';

/** Which part of the process traces: it names the default service. */
export type TracedPart = 'frontend' | 'mocker';

export interface PartTracing {
  /** Stops observing, sends the spans still batched, then stops the exporter. */
  stop(): Promise<void>;
}

const NOT_TRACING: PartTracing = { stop: () => Promise.resolve() };

function exporterFor(config: Config, part: TracedPart) {
  return startOtlpTracing({ serviceName: config.otelServiceName ?? `dynamo-ts-${part}`, tracesEndpoint: config.otelExporterOtlpTracesEndpoint });
}

/** Spans of the requests of `scope` (a frontend's), when tracing is on. */
export function traceFrontend(config: Config, scope: RequestScope): PartTracing {
  if (!config.otelExportEnabled) return NOT_TRACING;
  const tracing = exporterFor(config, 'frontend');
  const unsubscribe = new RequestTracing(tracing.tracer).observe(scope);
  return stopping(unsubscribe, tracing.shutdown);
}

/** Spans of the process's engine requests (a worker's), when tracing is on. */
export function traceEngines(config: Config): PartTracing {
  if (!config.otelExportEnabled) return NOT_TRACING;
  const tracing = exporterFor(config, 'mocker');
  return stopping(traceEngineRequests(tracing.tracer), tracing.shutdown);
}

function stopping(unsubscribe: () => void, shutdown: () => Promise<void>): PartTracing {
  return {
    stop() {
      unsubscribe();
      return shutdown();
    },
  };
}

// The OpenTelemetry SDK behind tracing: one tracer provider per process role, spans batched and
// sent over OTLP/HTTP (JSON). The exporter reads the standard OTEL_EXPORTER_OTLP_* variables
// (endpoint, headers, timeout) and the provider OTEL_TRACES_SAMPLER(_ARG) and OTEL_BSP_*.
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TracingOptions {
  /** The resource's `service.name` (OTEL_RESOURCE_ATTRIBUTES may add others). */
  serviceName: string;
  /** Where spans are POSTed; the exporter's OTEL_EXPORTER_OTLP_* handling when absent. */
  tracesEndpoint?: string;
}

export interface Tracing {
  readonly tracer: Tracer;
  /** Sends the spans still batched, then stops; for graceful shutdown. */
  shutdown(): Promise<void>;
}

/** Starts exporting: a provider of its own (nothing registered globally), so processes and tests stay apart. */
export function startOtlpTracing(opts: TracingOptions): Tracing {
  const exporter = new OTLPTraceExporter(opts.tracesEndpoint ? { url: opts.tracesEndpoint } : {});
  const resource = resourceFromAttributes({ 'service.name': opts.serviceName }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  let stopped: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('dynamo-ts'),
    shutdown: () => (stopped ??= provider.shutdown()),
  };
}

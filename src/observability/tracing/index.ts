export { startOtlpTracing, type Tracing, type TracingOptions } from './otlp-tracing.js';
export { RequestTracing } from './request-tracing.js';
export { traceEngineRequests } from './engine-tracing.js';

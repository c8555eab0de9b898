export { createLogger, logFormatFor, moduleLogger, type LogFormat, type Logger, type LoggerOptions } from './logger.js';
export { LOG_LEVELS, LOG_MODULES, parseLogFilter, type LogFilter, type LogLevel, type LogModule } from './log-filter.js';
export { parseTraceparent, traceContextOf, traceIdOf, type ParsedTraceparent } from './trace-context.js';
export { MetricsRegistry, type BucketCounts } from './metrics.js';
export { FrontendMetrics, meteredRequestScope, type RequestStatus } from './frontend-metrics.js';
export { registerClusterMetrics, type ClusterStatsSource, type ModelStats, type WorkerStats } from './cluster-metrics.js';
export { registerProcessMetrics } from './process-metrics.js';

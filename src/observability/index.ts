export { createLogger, type Logger } from './logger.js';
export { MetricsRegistry, type BucketCounts } from './metrics.js';
export { FrontendMetrics, meteredRequestScope, type RequestStatus } from './frontend-metrics.js';
export { registerClusterMetrics, type ClusterStatsSource, type ModelStats, type WorkerStats } from './cluster-metrics.js';
export { registerProcessMetrics } from './process-metrics.js';

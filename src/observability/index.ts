export { createLogger, type Logger } from './logger.js';
export { MetricsRegistry } from './metrics.js';
export { FrontendMetrics, type RequestStatus, type RequestTracker } from './frontend-metrics.js';

// The service's own routes: the probes, /metrics and the busy-threshold admin route.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { BUSY_THRESHOLD_ROUTE } from './busy-threshold.js';
import { HEALTH_ROUTE } from './health.js';
import { LIVE_ROUTE } from './live.js';
import { METRICS_ROUTE } from './metrics.js';

export const SERVICE_ROUTES = {
  health: HEALTH_ROUTE,
  live: LIVE_ROUTE,
  metrics: METRICS_ROUTE,
  busyThreshold: BUSY_THRESHOLD_ROUTE,
} satisfies Partial<Record<HttpRouteName, HttpRoute>>;

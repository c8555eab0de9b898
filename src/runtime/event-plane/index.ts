export { componentScope, type EventPlane } from './types.js';
export { LocalEventPlane } from './local-plane.js';
export { NatsEventPlane } from './nats-plane.js';
export { ZmqEventPlane, type ZmqEventPlaneOptions } from './zmq-plane.js';
export { EVENT_PLANES, defaultEventPlane, type EventPlaneName, type EventPlaneDeps } from './create-plane.js';
export { KV_EVENT_TOPIC, kvEventSubject, kvEventPublisher, announceKvEvents, subscribeKvEvents } from './kv-events.js';
export { LOAD_METRICS_TOPIC, loadMetricsSubject, loadMetricsPublisher, announceLoadMetrics, subscribeLoadMetrics } from './load-metrics.js';

// `<prefix>_plane_up{plane}`: 1 while this process reaches every part of the plane it depends on
// (discovery: etcd; events: NATS or every ZMQ publisher; requests: NATS when requests take it), 0
// during an outage. Read at scrape time; a frontend pool shows the lowest of its processes.
import { PLANE_NAMES, type PlaneStatusView } from '../protocols/index.js';
import type { MetricsRegistry } from './metrics.js';

export function registerPlaneMetrics(registry: MetricsRegistry, planes: PlaneStatusView): void {
  registry.scrapedGauge(
    registry.name('plane_up'),
    'Whether this process reaches the plane (1) or one of its parts is down (0)',
    ['plane'],
    (set) => {
      const down = new Set(planes.outages().map((o) => o.plane));
      for (const plane of PLANE_NAMES) set({ plane }, down.has(plane) ? 0 : 1);
    },
    'min',
  );
}

// Process metrics: prom-client's default collectors under their standard names (`process_*` CPU,
// RSS, fds; `nodejs_*` heap, GC, event-loop lag), which upstream has no counterpart of, plus
// upstream's event-loop canary (reference/operate-faults.md §4) under the frontend prefix.
// prom-client's own event-loop collector is left out: it keeps a 10 ms timer running for the life
// of the process; the event-loop watch fills its gauges from a canary that sleeps while idle.

import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';
import { subscribeRequestEvents, type RequestScope } from '../protocols/index.js';
import { EventLoopWatch } from './event-loop-watch.js';
import type { MetricsRegistry } from './metrics.js';

type Collector = (registry: Registry, config: object) => void;

/** `collectDefaultMetrics`' collectors (prom-client's `metricsList`) but `eventLoopLag`. */
export const DEFAULT_COLLECTORS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
] as const;

const require = createRequire(import.meta.url);

/**
 * Starts collecting into `registry`, watching the event loop while `scope` has requests in flight;
 * the returned function stops the watch.
 */
export function registerProcessMetrics(registry: MetricsRegistry, scope: RequestScope): () => void {
  for (const name of DEFAULT_COLLECTORS) (require(`prom-client/lib/metrics/${name}`) as Collector)(registry.registry, {});
  const watch = new EventLoopWatch(registry);
  const ended = (): void => watch.ended();
  const unsubscribe = subscribeRequestEvents(scope, { start: () => watch.started(), end: ended, error: ended, cancel: ended });
  return () => {
    unsubscribe();
    watch.stop();
  };
}

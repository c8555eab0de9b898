// Process metrics: prom-client's default collectors under their standard names (`process_*` CPU,
// RSS, fds; `nodejs_*` event-loop lag, heap, GC), which upstream has no counterpart of, plus
// upstream's event-loop canary (reference/operate-faults.md §4) under the frontend prefix.

import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics } from 'prom-client';
import type { MetricsRegistry } from './metrics.js';

const CANARY_MS = 10;
const STALL_SECONDS = 0.005;
const DELAY_BUCKETS = [0, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** Starts collecting into `registry`; the returned function stops the canary. */
export function registerProcessMetrics(registry: MetricsRegistry): () => void {
  collectDefaultMetrics({ register: registry.registry });
  const delay = registry.histogram(registry.name('event_loop_delay_seconds'), 'How late a 10 ms canary timer fired', [], DELAY_BUCKETS);
  const stalls = registry.counter(registry.name('event_loop_stall_total'), 'Canary timers more than 5 ms late', []);
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const due = performance.now() + CANARY_MS;
    timer = setTimeout(() => {
      const late = Math.max(0, (performance.now() - due) / 1000);
      delay.observe(late);
      if (late > STALL_SECONDS) stalls.inc();
      arm();
    }, CANARY_MS);
    // The canary watches the loop; it must never be what keeps the process alive.
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}

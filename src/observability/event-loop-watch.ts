// How late the event loop runs, watched while the frontend has work: upstream's 10 ms canary timer
// (reference/operate-faults.md §4) ticks from a request's start until WATCH_AFTER_MS after the
// last one ended, and sleeps while nothing is in flight, when there is nothing to be late for and
// a 10 ms timer would be the process's only work (100 wake-ups a second). The same ticks feed the
// canary histogram and stall counter under the frontend prefix and the `nodejs_eventloop_lag_*`
// gauges that prom-client would otherwise feed from a 10 ms timer of its own that never sleeps.

import { createHistogram, performance } from 'node:perf_hooks';
import { Gauge } from 'prom-client';
import type { MetricsRegistry } from './metrics.js';

const CANARY_MS = 10;
const STALL_SECONDS = 0.005;
/** Stalls just after a burst (a late callback, a collection) are still the burst's. */
const WATCH_AFTER_MS = 1000;
const DELAY_BUCKETS = [0, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export class EventLoopWatch {
  private inFlight = 0;
  private lastEndedAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Lateness in ns since the last scrape, for the `nodejs_eventloop_lag_*` statistics. */
  private readonly sinceScrape = createHistogram();

  private readonly delay;
  private readonly stalls;

  constructor(registry: MetricsRegistry) {
    this.delay = registry.histogram(registry.name('event_loop_delay_seconds'), 'How late a 10 ms canary timer fired', [], DELAY_BUCKETS);
    this.stalls = registry.counter(registry.name('event_loop_stall_total'), 'Canary timers more than 5 ms late', []);
    registerLagGauges(registry, this.sinceScrape);
  }

  /** A request started: the canary runs while any is in flight. */
  started(): void {
    this.inFlight++;
    this.arm();
  }

  /** A request ended, failed or was cancelled. */
  ended(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastEndedAt = performance.now();
  }

  /** Whether the canary is ticking (for tests: it must sleep while idle). */
  get watching(): boolean {
    return this.timer !== undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer || this.stopped) return;
    const due = performance.now() + CANARY_MS;
    this.timer = setTimeout(() => this.tick(due), CANARY_MS);
    // The canary watches the loop; it must never be what keeps the process alive.
    this.timer.unref();
  }

  private tick(due: number): void {
    this.timer = undefined;
    const now = performance.now();
    const late = Math.max(0, (now - due) / 1000);
    this.delay.observe(late);
    if (late > STALL_SECONDS) this.stalls.inc();
    // The histogram records whole nanoseconds, at least one.
    this.sinceScrape.record(Math.max(1, Math.round(late * 1e9)));
    if (this.inFlight > 0 || now - this.lastEndedAt < WATCH_AFTER_MS) this.arm();
  }
}

/**
 * prom-client's event-loop lag family, under its names, help and pool aggregators: the lag of a
 * callback queued at scrape time (reported at the next scrape, as prom-client does) and the canary's
 * lateness statistics since the previous scrape, 0 when it slept throughout (nothing was late).
 */
function registerLagGauges(registry: MetricsRegistry, sinceScrape: ReturnType<typeof createHistogram>): void {
  const registers = [registry.registry];
  const gauge = (suffix: string, help: string, aggregator: 'min' | 'max' | 'average') =>
    new Gauge({ name: `nodejs_eventloop_lag_${suffix}seconds`, help, registers, aggregator });
  const min = gauge('min_', 'The minimum recorded event loop delay.', 'min');
  const max = gauge('max_', 'The maximum recorded event loop delay.', 'max');
  const mean = gauge('mean_', 'The mean of the recorded event loop delays.', 'average');
  const stddev = gauge('stddev_', 'The standard deviation of the recorded event loop delays.', 'average');
  const p50 = gauge('p50_', 'The 50th percentile of the recorded event loop delays.', 'average');
  const p90 = gauge('p90_', 'The 90th percentile of the recorded event loop delays.', 'average');
  const p99 = gauge('p99_', 'The 99th percentile of the recorded event loop delays.', 'average');
  new Gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    registers,
    aggregator: 'average',
    collect() {
      const queuedAt = performance.now();
      setImmediate(() => this.set((performance.now() - queuedAt) / 1000));
      const seen = sinceScrape.count > 0;
      const seconds = (ns: number): number => (seen ? ns / 1e9 : 0);
      min.set(seconds(sinceScrape.min));
      max.set(seconds(sinceScrape.max));
      mean.set(seconds(sinceScrape.mean));
      stddev.set(seconds(sinceScrape.stddev));
      p50.set(seconds(sinceScrape.percentile(50)));
      p90.set(seconds(sinceScrape.percentile(90)));
      p99.set(seconds(sinceScrape.percentile(99)));
      sinceScrape.reset();
    },
  });
}

// The live dashboard's data: once per interval, a snapshot of the request events of that interval
// (the same events /metrics counts) and of the cluster state (the same source /metrics reads),
// serialized once and handed to every watcher. It costs nothing while nobody watches: the event
// subscriptions and the timer exist only between the first watcher and the last one leaving.

import { subscribeRequestEvents, type RequestScope } from '../protocols/index.js';
import type { ClusterStatsSource } from './cluster-metrics.js';
import { dashboardSnapshot, HitRateWindows } from './dashboard-snapshot.js';
import { LatencyWindow } from './latency-window.js';

/** Events a watcher receives: `history` (a JSON array of recent snapshots) on joining, then each `snapshot`. */
export type DashboardEventName = 'history' | 'snapshot';

export interface DashboardWatcher {
  send(event: DashboardEventName, json: string): void;
  /** The feed closed (the server is stopping): end the stream. */
  end(): void;
}

export interface DashboardFeedOptions {
  /** Milliseconds per snapshot (default 1000). */
  intervalMs?: number;
  /** Snapshots a new watcher gets as history (default 300: five minutes at one a second). */
  historyLength?: number;
  /** A snapshot that failed to build: reported here and skipped. */
  onError?: (err: unknown) => void;
}

/** The counts of one interval; reset at every snapshot. */
class RequestCounts {
  started = 0;
  succeeded = 0;
  failed = 0;
  cancelled = 0;
  outputTokens = 0;
  readonly ttft = new LatencyWindow();
  readonly itl = new LatencyWindow();

  take(seconds: number) {
    const window = { seconds, started: this.started, succeeded: this.succeeded, failed: this.failed, cancelled: this.cancelled, outputTokens: this.outputTokens, ttft: this.ttft.take(), itl: this.itl.take() };
    this.started = this.succeeded = this.failed = this.cancelled = this.outputTokens = 0;
    return window;
  }
}

export class DashboardFeed {
  private readonly watchers = new Set<DashboardWatcher>();
  private readonly intervalMs: number;
  private readonly historyLength: number;
  private history: string[] = [];
  private running: { timer: NodeJS.Timeout; unsubscribe: () => void; counts: RequestCounts; hitRates: HitRateWindows; since: number } | null = null;

  constructor(
    private readonly source: ClusterStatsSource,
    private readonly scope: RequestScope,
    private readonly opts: DashboardFeedOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.historyLength = opts.historyLength ?? 300;
  }

  /** True while someone watches: events are counted and snapshots taken. */
  get active(): boolean {
    return this.running !== null;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  /** Sends `watcher` the history, then every snapshot until the returned function is called. */
  watch(watcher: DashboardWatcher): () => void {
    this.watchers.add(watcher);
    if (!this.running) this.start();
    watcher.send('history', `[${this.history.join(',')}]`);
    return () => {
      if (this.watchers.delete(watcher) && this.watchers.size === 0) this.stop();
    };
  }

  /** Ends every watcher's stream and stops. */
  close(): void {
    const watchers = [...this.watchers];
    this.watchers.clear();
    this.stop();
    for (const w of watchers) w.end();
  }

  private start(): void {
    const counts = new RequestCounts();
    const unsubscribe = subscribeRequestEvents(this.scope, {
      start: () => counts.started++,
      firstToken: ({ ttft }) => counts.ttft.observe(ttft),
      token: ({ tokens, interval }) => {
        counts.outputTokens += tokens;
        if (interval !== null) counts.itl.observe(interval);
      },
      end: () => counts.succeeded++,
      error: () => counts.failed++,
      cancel: () => counts.cancelled++,
    });
    const hitRates = new HitRateWindows();
    // The first window of hit rates starts now, not at the router's first decision.
    hitRates.take(this.source());
    const timer = setInterval(() => this.tick(), this.intervalMs);
    // The watchers' sockets keep the process up; the timer alone never does.
    timer.unref();
    this.running = { timer, unsubscribe, counts, hitRates, since: performance.now() };
  }

  private stop(): void {
    if (!this.running) return;
    clearInterval(this.running.timer);
    this.running.unsubscribe();
    this.running = null;
    this.history = [];
  }

  private tick(): void {
    const run = this.running;
    if (!run) return;
    const now = performance.now();
    const window = run.counts.take(Math.round(now - run.since) / 1000);
    run.since = now;
    let json: string;
    try {
      const models = this.source();
      json = JSON.stringify(dashboardSnapshot(Date.now(), window, models, run.hitRates.take(models)));
    } catch (err) {
      this.opts.onError?.(err);
      return;
    }
    this.history.push(json);
    if (this.history.length > this.historyLength) this.history.shift();
    for (const w of this.watchers) w.send('snapshot', json);
  }
}

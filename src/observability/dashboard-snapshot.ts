// The dashboard's view of one moment: what the request events of the last window add up to, and
// the models and workers as /metrics reads them (cluster-metrics.ts), merged per worker.

import type { LatencySummary } from './latency-window.js';
import type { ModelStats } from './cluster-metrics.js';

/** The request events of one window. */
export interface RequestWindow {
  /** Seconds the window lasted. */
  readonly seconds: number;
  readonly started: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly cancelled: number;
  readonly outputTokens: number;
  /** Time to first token of the requests whose first token came in the window. */
  readonly ttft: LatencySummary | null;
  /** Time between token-carrying steps, every stream's steps together. */
  readonly itl: LatencySummary | null;
}

export interface ModelRow {
  readonly model: string;
  readonly ready: boolean;
  readonly instances: number;
  readonly downInstances: number;
  readonly queuedRequests: number;
  /** Requests in flight on its workers. */
  readonly activeRequests: number;
  readonly contextLength: number;
  readonly kvCacheBlockSize: number;
  readonly totalKvBlocks: number | null;
  /** Mean predicted KV hit rate of the window's routing decisions; null without decisions (or a KV router). */
  readonly kvHitRate: number | null;
}

export interface WorkerRow {
  readonly workerId: string;
  readonly workerType: 'prefill' | 'decode';
  readonly models: readonly string[];
  readonly activeRequests: number;
  readonly activePrefillTokens: number;
  /** KV blocks in use as it last reported; null when it reports none. */
  readonly activeBlocks: number | null;
  readonly totalBlocks: number | null;
  /** activeBlocks / totalBlocks; null when either is unknown. */
  readonly kvUsage: number | null;
}

/** One server-sent `snapshot` event of `/dashboard/events`. */
export interface DashboardSnapshot {
  /** Unix milliseconds. */
  readonly time: number;
  readonly windowSeconds: number;
  readonly requests: {
    readonly perSecond: number;
    readonly started: number;
    readonly succeeded: number;
    readonly failed: number;
    readonly cancelled: number;
    /** In flight on workers now, every model together. */
    readonly active: number;
    readonly queued: number;
  };
  readonly outputTokensPerSecond: number;
  /** Seconds. */
  readonly ttft: LatencySummary | null;
  /** Seconds. */
  readonly itl: LatencySummary | null;
  /** Mean predicted KV hit rate of the window's routing decisions, every model together. */
  readonly kvHitRate: number | null;
  /** KV blocks in use over KV blocks, every worker that reports both together. */
  readonly kvUsage: number | null;
  readonly models: readonly ModelRow[];
  readonly workers: readonly WorkerRow[];
}

/** Routing decisions counted so far: their number and the sum of their predicted hit rates. */
interface DecisionTotals {
  readonly count: number;
  readonly sum: number;
}

/**
 * Turns cumulative routing-decision counts into per-window hit rates. It remembers each model's
 * totals at the previous snapshot; a model seen for the first time has no window yet.
 */
export class HitRateWindows {
  private previous = new Map<string, DecisionTotals>();

  /** Per model, the mean hit rate of the decisions since the last call; and all models together. */
  take(models: readonly ModelStats[]): { perModel: Map<string, number | null>; overall: number | null } {
    const current = new Map<string, DecisionTotals>();
    const perModel = new Map<string, number | null>();
    let count = 0;
    let sum = 0;
    for (const m of models) {
      if (!m.decisions) continue;
      const now = { count: m.decisions.kvHitRate.count, sum: m.decisions.kvHitRate.sum };
      current.set(m.model, now);
      const before = this.previous.get(m.model);
      const decisions = before ? now.count - before.count : 0;
      const total = before ? now.sum - before.sum : 0;
      perModel.set(m.model, decisions > 0 ? total / decisions : null);
      count += decisions;
      sum += total;
    }
    this.previous = current;
    return { perModel, overall: count > 0 ? sum / count : null };
  }
}

const ratio = (part: number | null, whole: number | null): number | null =>
  part === null || whole === null || whole <= 0 ? null : part / whole;

/** The workers of every model, one row per worker id (a worker serving several models is one row). */
export function workerRows(models: readonly ModelStats[]): WorkerRow[] {
  const rows = new Map<string, { workerId: string; workerType: 'prefill' | 'decode'; models: string[]; activeRequests: number; activePrefillTokens: number; activeBlocks: number | null; totalBlocks: number | null }>();
  for (const m of models) {
    for (const w of m.workers) {
      const row = rows.get(w.workerId);
      if (!row) {
        rows.set(w.workerId, {
          workerId: w.workerId,
          workerType: w.workerType,
          models: [m.model],
          activeRequests: w.inflightRequests,
          activePrefillTokens: w.activePrefillTokens,
          activeBlocks: w.activeDecodeBlocks,
          totalBlocks: w.kvTotalBlocks,
        });
        continue;
      }
      // Router counts add up over models; the worker's own KV report is one value.
      row.models.push(m.model);
      row.activeRequests += w.inflightRequests;
      row.activePrefillTokens += w.activePrefillTokens;
      row.activeBlocks ??= w.activeDecodeBlocks;
      row.totalBlocks ??= w.kvTotalBlocks;
    }
  }
  return [...rows.values()]
    .sort((a, b) => a.workerId.localeCompare(b.workerId))
    .map((r) => ({ ...r, kvUsage: ratio(r.activeBlocks, r.totalBlocks) }));
}

export function modelRows(models: readonly ModelStats[], hitRates: ReadonlyMap<string, number | null>): ModelRow[] {
  return models
    .map((m) => ({
      model: m.model,
      ready: m.instances - m.downInstances > 0,
      instances: m.instances,
      downInstances: m.downInstances,
      queuedRequests: m.queuedRequests,
      activeRequests: m.workers.reduce((n, w) => n + w.inflightRequests, 0),
      contextLength: m.contextLength,
      kvCacheBlockSize: m.kvCacheBlockSize,
      totalKvBlocks: m.totalKvBlocks,
      kvHitRate: hitRates.get(m.model) ?? null,
    }))
    .sort((a, b) => a.model.localeCompare(b.model));
}

/** The snapshot of one window over the cluster's state now. */
export function dashboardSnapshot(time: number, window: RequestWindow, models: readonly ModelStats[], hitRates: ReturnType<HitRateWindows['take']>): DashboardSnapshot {
  const modelList = modelRows(models, hitRates.perModel);
  const workers = workerRows(models);
  const reporting = workers.filter((w) => w.kvUsage !== null);
  const sumOf = (read: (w: WorkerRow) => number | null): number => reporting.reduce((n, w) => n + (read(w) ?? 0), 0);
  const perSecond = (n: number): number => (window.seconds > 0 ? n / window.seconds : 0);
  return {
    time,
    windowSeconds: window.seconds,
    requests: {
      perSecond: perSecond(window.started),
      started: window.started,
      succeeded: window.succeeded,
      failed: window.failed,
      cancelled: window.cancelled,
      active: modelList.reduce((n, m) => n + m.activeRequests, 0),
      queued: modelList.reduce((n, m) => n + m.queuedRequests, 0),
    },
    outputTokensPerSecond: perSecond(window.outputTokens),
    ttft: window.ttft,
    itl: window.itl,
    kvHitRate: hitRates.overall,
    kvUsage: reporting.length > 0 ? ratio(sumOf((w) => w.activeBlocks), sumOf((w) => w.totalBlocks)) : null,
    models: modelList,
    workers,
  };
}

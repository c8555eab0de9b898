// One run's outcomes → its summary: latency distributions, throughput, errors.
import type { Outcome } from './clients/index.js';
import type { LoadPoint } from './schedule.js';

export interface Distribution {
  readonly count: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

export interface RunSummary {
  readonly load: LoadPoint;
  readonly requests: { readonly completed: number; readonly failed: number };
  /** From the run's start to the end of its last request. */
  readonly durationS: number;
  readonly requestsPerS: number;
  readonly outputTokensPerS: number;
  readonly tokens: { readonly input: number; readonly output: number; readonly cachedInput: number };
  /** Streaming runs only. */
  readonly ttftMs?: Distribution;
  /** Per request (end-to-end − TTFT) / (output tokens − 1), over requests with two tokens or more. */
  readonly interTokenMs?: Distribution;
  readonly e2eMs?: Distribution;
  /** Error message → count. */
  readonly errors: Readonly<Record<string, number>>;
  /** Raw per-request values, for plots. */
  readonly samples: { readonly ttftMs: readonly number[]; readonly e2eMs: readonly number[] };
}

export function summarize(load: LoadPoint, startMs: number, outcomes: readonly Outcome[]): RunSummary {
  const ok = outcomes.filter((o) => o.error === undefined);
  const endMs = outcomes.reduce((end, o) => Math.max(end, o.endMs), startMs);
  const durationS = (endMs - startMs) / 1000;
  const sum = (pick: (o: Outcome) => number | undefined) => ok.reduce((total, o) => total + (pick(o) ?? 0), 0);
  const output = sum((o) => o.outputTokens);
  const ttft = ok.flatMap((o) => (o.ttftMs === undefined ? [] : [o.ttftMs]));
  const e2e = ok.map((o) => o.endMs - o.startMs);
  const itl = ok.flatMap((o) => (o.ttftMs !== undefined && o.outputTokens > 1 ? [(o.endMs - o.startMs - o.ttftMs) / (o.outputTokens - 1)] : []));
  const errors: Record<string, number> = {};
  for (const o of outcomes) if (o.error !== undefined) errors[o.error] = (errors[o.error] ?? 0) + 1;
  return {
    load,
    requests: { completed: ok.length, failed: outcomes.length - ok.length },
    durationS,
    requestsPerS: durationS > 0 ? ok.length / durationS : 0,
    outputTokensPerS: durationS > 0 ? output / durationS : 0,
    tokens: { input: sum((o) => o.inputTokens), output, cachedInput: sum((o) => o.cachedTokens) },
    ttftMs: distribution(ttft),
    interTokenMs: distribution(itl),
    e2eMs: distribution(e2e),
    errors,
    samples: { ttftMs: ttft.map(round3), e2eMs: e2e.map(round3) },
  };
}

/** Nearest-rank percentiles; undefined for no values. */
export function distribution(values: readonly number[]): Distribution | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => round3(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { count: sorted.length, mean: round3(mean), min: round3(sorted[0]!), max: round3(sorted[sorted.length - 1]!), p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

// Latency quantiles over one short window (the dashboard's second), at a fixed cost per sample:
// samples fall into logarithmic buckets 5% wide, so a quantile is known to within 2.5% whatever
// the number of samples, and nothing grows with the token rate.

const MIN_SECONDS = 1e-5;
const MAX_SECONDS = 1e4;
const RATIO = 1.05;
const LOG_RATIO = Math.log(RATIO);
const BUCKETS = Math.ceil(Math.log(MAX_SECONDS / MIN_SECONDS) / LOG_RATIO) + 1;

/** What one window saw, in seconds. */
export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

export class LatencyWindow {
  private readonly counts = new Float64Array(BUCKETS);
  private count = 0;
  private sum = 0;
  private max = 0;

  observe(seconds: number): void {
    const clamped = Math.min(Math.max(seconds, MIN_SECONDS), MAX_SECONDS);
    this.counts[Math.floor(Math.log(clamped / MIN_SECONDS) / LOG_RATIO)]! += 1;
    this.count += 1;
    this.sum += seconds;
    if (seconds > this.max) this.max = seconds;
  }

  /** The window's summary (null when it saw nothing), and a fresh window. */
  take(): LatencySummary | null {
    const summary = this.count === 0 ? null : { count: this.count, mean: this.sum / this.count, p50: this.quantile(0.5), p95: this.quantile(0.95), max: this.max };
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.max = 0;
    return summary;
  }

  /** The geometric middle of the bucket holding the q-quantile, never above the largest sample. */
  private quantile(q: number): number {
    const rank = q * this.count;
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank && this.counts[i]! > 0) return Math.min(MIN_SECONDS * RATIO ** (i + 0.5), this.max);
    }
    return this.max;
  }
}

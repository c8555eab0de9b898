// Running bucket counts: a histogram without a metrics library, so a hot path counts a value with a
// few additions and /metrics reads the counts when scraped (observability/metrics.ts
// `scrapedHistogram`). The router tallies its decisions, the frontend its inter-token latencies.

export class Tally {
  /** Per bucket, not cumulative: counts[i] holds the values in (bounds[i-1], bounds[i]]. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

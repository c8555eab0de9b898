// One Prometheus registry per process, shared by every frontend. Metric objects are created once
// by name and reused, so two components asking for the same metric share it.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Bucket counts as a component keeps them: per bucket (not cumulative), with their upper bounds. */
export interface BucketCounts {
  readonly bounds: readonly number[];
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

export class MetricsRegistry {
  readonly registry = new Registry();
  private readonly metrics = new Map<string, Counter<string> | Gauge<string> | Histogram<string>>();
  private readonly scraped = new Set<string>();
  private exposition: (() => Promise<string>) | null = null;

  /** `prefix` names the frontend's own metrics (`--metrics-prefix`, default `dynamo_frontend`). */
  constructor(readonly prefix = 'dynamo_frontend') {}

  /** `<prefix>_<name>`. */
  name(suffix: string): string {
    return `${this.prefix}_${suffix}`;
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return this.getOrCreate(name, () => new Counter({ name, help, labelNames, registers: [this.registry] }));
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
    return this.getOrCreate(name, () => new Gauge({ name, help, labelNames, registers: [this.registry] }));
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets?: number[]): Histogram<L> {
    return this.getOrCreate(name, () => new Histogram({ name, help, labelNames, registers: [this.registry], ...(buckets ? { buckets } : {}) }));
  }

  /**
   * A gauge whose series are read when /metrics is scraped, not kept up to date: `read` is
   * called per scrape and sets every series that exists now (the others disappear). `aggregator`
   * says how a frontend pool combines the processes' values (prom-client's default: their sum).
   */
  scrapedGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (set: (labels: Record<L, string>, value: number) => void) => void,
    aggregator?: 'min' | 'max' | 'sum',
  ): Gauge<L> {
    return this.getOrCreate(name, () =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        ...(aggregator && { aggregator }),
        collect() {
          this.reset();
          read((labels, value) => this.set(labels as never, value));
        },
      }),
    );
  }

  /**
   * A histogram whose bucket counts are kept elsewhere (a component counting with plain numbers)
   * and read when /metrics is scraped. Its lines read as prom-client's own histograms' do (`le`
   * first), so a histogram moved here scrapes as it did.
   */
  scrapedHistogram<L extends string>(name: string, help: string, read: (emit: (labels: Record<L, string>, counts: BucketCounts) => void) => void): void {
    if (this.scraped.has(name)) return;
    this.scraped.add(name);
    const get = () => {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      read((labels, counts) => {
        let cumulative = 0;
        counts.bounds.forEach((bound, i) => {
          cumulative += counts.counts[i]!;
          values.push({ metricName: `${name}_bucket`, labels: { le: bound, ...labels }, value: cumulative });
        });
        values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: counts.count });
        values.push({ metricName: `${name}_sum`, labels, value: counts.sum });
        values.push({ metricName: `${name}_count`, labels, value: counts.count });
      });
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    };
    this.registry.registerMetric({ name, help, type: 'histogram', get } as never);
  }

  /**
   * A counter whose values are kept elsewhere (a component counting with plain numbers) and read
   * when /metrics is scraped: `read` emits every series with its total so far.
   */
  scrapedCounter<L extends string>(name: string, help: string, read: (emit: (labels: Record<L, string>, total: number) => void) => void): void {
    if (this.scraped.has(name)) return;
    this.scraped.add(name);
    const get = () => {
      const values: { labels: Record<string, string>; value: number }[] = [];
      read((labels, value) => values.push({ labels, value }));
      return { name, help, type: 'counter', values, aggregator: 'sum' };
    };
    this.registry.registerMetric({ name, help, type: 'counter', get } as never);
  }

  /** The text exposition of every metric (or what `renderThrough` gives instead). */
  render(): Promise<string> {
    return this.exposition ? this.exposition() : this.registry.metrics();
  }

  /** Scrapes answer with `render` instead: several frontend processes show their registries combined. */
  renderThrough(render: () => Promise<string>): void {
    this.exposition = render;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private getOrCreate<M>(name: string, make: () => M): M {
    let metric = this.metrics.get(name);
    if (!metric) {
      metric = make() as Counter<string>;
      this.metrics.set(name, metric);
    }
    return metric as M;
  }
}

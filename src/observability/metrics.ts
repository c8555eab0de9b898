// One Prometheus registry per process, shared by every frontend. Metric objects are created once
// by name and reused, so two components asking for the same metric share it.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export class MetricsRegistry {
  readonly registry = new Registry();
  private readonly metrics = new Map<string, Counter<string> | Gauge<string> | Histogram<string>>();

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
   * called per scrape and sets every series that exists now (the others disappear).
   */
  scrapedGauge<L extends string>(name: string, help: string, labelNames: readonly L[], read: (set: (labels: Record<L, string>, value: number) => void) => void): Gauge<L> {
    return this.getOrCreate(name, () =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect() {
          this.reset();
          read((labels, value) => this.set(labels as never, value));
        },
      }),
    );
  }

  /** The text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
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

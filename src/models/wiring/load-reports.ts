// Workers' load reports (`kv_metrics` on the event plane) feed each instance's capacity, which busy
// detection reads. Reports are per namespace: one subscription serves every model in it.
import type { Logger } from '../../observability/index.js';
import { WorkerLoads, type WorkerCapacity, type WorkerTotals } from '../../router/index.js';
import { subscribeLoadMetrics, type EventPlane } from '../../runtime/index.js';

export class LoadReports {
  private readonly loads = new WorkerLoads();
  /** Namespace → its subscription, opened with its first LLM model. */
  private readonly subscriptions = new Map<string, Promise<() => void>>();

  constructor(
    private readonly events: () => EventPlane,
    private readonly logger: Logger,
  ) {}

  /** Subscribes to `namespace`'s reports, unless already subscribed. */
  watch(namespace: string): void {
    if (this.subscriptions.has(namespace)) return;
    const subscription = subscribeLoadMetrics(
      this.events(),
      namespace,
      (load) => this.loads.apply(load),
      (err) => this.logger.warn({ err: err.message }, 'undecodable load report'),
    );
    subscription.catch((err: Error) => this.logger.error({ namespace, err: err.message }, 'cannot subscribe to worker load reports'));
    this.subscriptions.set(namespace, subscription);
  }

  /** An instance's `capacity()`: its last reported use against the totals its card declares. */
  capacityOf(id: bigint, totals: WorkerTotals): () => WorkerCapacity {
    return this.loads.capacityOf(id, totals);
  }

  /** The instance left or is down: its reports no longer count. */
  forget(id: bigint): void {
    this.loads.forget(id);
  }

  stop(): void {
    for (const sub of this.subscriptions.values()) void sub.then((off) => off()).catch(() => undefined);
    this.subscriptions.clear();
  }
}

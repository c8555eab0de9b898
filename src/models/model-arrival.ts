// Waiting for a model to come through discovery: `serve` returns once the model its own workers
// registered is live in its frontend, as a client polling /v1/models would wait on a cluster.
import { InternalError } from '../protocols/index.js';
import type { ModelWatcherObserver } from './model-watcher.js';

interface Waiter {
  name: string;
  instances: number;
  resolve(): void;
  reject(err: Error): void;
}

export class ModelArrival implements ModelWatcherObserver {
  private readonly live = new Map<string, number>();
  private readonly rejected = new Map<string, Error>();
  private waiter: Waiter | null = null;

  modelChanged(name: string, instances: number): void {
    this.live.set(name, instances);
    this.settle();
  }

  modelRejected(name: string, err: Error): void {
    this.rejected.set(name, err);
    this.settle();
  }

  /** The models live with at least one worker now. */
  liveNames(): string[] {
    return [...this.live].filter(([, instances]) => instances > 0).map(([name]) => name);
  }

  /** Resolves once `name` is live with at least `instances` workers; rejects if its card is rejected. */
  until(name: string, instances: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiter = { name, instances, resolve, reject };
      this.settle();
    });
  }

  private settle(): void {
    const w = this.waiter;
    if (!w) return;
    const err = this.rejected.get(w.name);
    if (err) w.reject(new InternalError(`model ${w.name} cannot be served: ${err.message}`));
    else if ((this.live.get(w.name) ?? -1) >= w.instances) w.resolve();
    else return;
    this.waiter = null;
  }
}

// `--router-min-initial-workers N`: the frontend is not ready until N workers have registered.
// Upstream waits for them before it builds the model's pipeline; here the model is discovered as
// usual and readiness (/health, /v1/models, gRPC ServerReady, inference) is held instead, so a load
// balancer sees "not ready" rather than requests failing one by one. Once open it stays open: a
// worker leaving later is routing's business, not startup's.
import { UnavailableError } from '../protocols/index.js';

export class StartupHold {
  private open: boolean;

  constructor(
    private readonly minWorkers: number,
    /** Distinct worker instances discovered now. */
    private readonly countWorkers: () => number,
  ) {
    this.open = minWorkers <= 0;
  }

  /** Counted on each read until the threshold is first met (reads are health probes, not hot paths). */
  get ready(): boolean {
    if (!this.open && this.countWorkers() >= this.minWorkers) this.open = true;
    return this.open;
  }

  /** Why the service is not ready, for 503 bodies and logs. */
  reason(): string {
    return `Service is not ready: waiting for ${this.minWorkers} initial workers (${this.countWorkers()} registered)`;
  }

  assertReady(): void {
    if (!this.ready) throw new UnavailableError(this.reason());
  }
}

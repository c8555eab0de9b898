// Routes each request of one model to one of its live instances, through the routing layers of
// routing-chain.ts. Generic over the kind of request, so LLM and tensor models share it.
import type { GenerateContext } from '../protocols/index.js';
import { NO_BUSY_THRESHOLDS, type BusyThresholds } from './busy.js';
import { InstanceHealth, type WorkerLiveness } from './health/index.js';
import { NO_MIGRATION, type Migration } from './layers/migration-settings.js';
import { LoadTracker } from './load-tracker.js';
import type { RouterPolicy, WorkerPreview } from './policies/index.js';
import type { StreamingEngine } from './worker-instance.js';
import type { RequestView } from './request-views.js';
import { composeLayers, sendToTarget, targetOf, type Decision, type Dispatch, type Instance, type RouteStep } from './route.js';
import { routingChain } from './routing-chain.js';
import type { RouterView } from './router-view.js';
import type { SessionAffinity } from './session-affinity.js';

export interface RouterOptions<Req = unknown, Out = unknown> {
  /** Shared with a load-based policy, which reads it. */
  load?: LoadTracker;
  busyThresholds?: BusyThresholds;
  /** Off by default: requests are then only retried elsewhere before their first output. */
  migration?: Migration<Req, Out>;
  /** The process's record of down instances, shared by its routers; a router of its own otherwise. */
  health?: InstanceHealth;
  /** A stream silent this long fails as a lost worker; 0 or absent: never. */
  stallTimeoutMs?: number;
  /** The process's watch for silent workers, shared with its health record; absent: only the stall timeout. */
  liveness?: WorkerLiveness | null;
  /** The router mode the policy was made for; `round-robin` when absent. */
  mode?: string;
  /** Session affinity; off when absent. */
  affinity?: SessionAffinity | null;
}

export class Router<Req, Out> implements StreamingEngine<Req, Out>, RouterView<Req, Out> {
  /** The discovered instances, sorted by id. */
  private live: Instance<Req, Out>[] = [];
  /** `live` without the down instances, as of health version `routableAt`. */
  private routable: Instance<Req, Out>[] = [];
  private routableAt = -1;
  readonly load: LoadTracker;
  readonly health: InstanceHealth;
  readonly stallTimeoutMs: number;
  readonly liveness: WorkerLiveness | null;
  readonly mode: string;
  /** Busy thresholds; replaced at runtime by `/busy_threshold`. */
  busyThresholds: BusyThresholds;
  readonly migration: Migration<Req, Out>;
  readonly affinity: SessionAffinity | null;
  private readonly dispatch: Dispatch<Req, Out>;
  private readonly choose: readonly RouteStep<Req, Out>[];
  private readonly gates: readonly RouteStep<Req, Out>[];

  constructor(
    readonly modelName: string,
    readonly policy: RouterPolicy<Req, Out>,
    readonly requests: RequestView<Req>,
    opts: RouterOptions<Req, Out> = {},
  ) {
    this.load = opts.load ?? new LoadTracker();
    this.busyThresholds = opts.busyThresholds ?? NO_BUSY_THRESHOLDS;
    this.migration = opts.migration ?? (NO_MIGRATION as Migration<Req, Out>);
    this.health = opts.health ?? new InstanceHealth();
    this.stallTimeoutMs = opts.stallTimeoutMs ?? 0;
    this.liveness = opts.liveness ?? null;
    this.mode = opts.mode ?? 'round-robin';
    this.affinity = opts.affinity ?? null;
    const chain = routingChain<Req, Out>(this);
    this.dispatch = composeLayers(chain.layers, sendToTarget);
    this.choose = chain.choose;
    this.gates = chain.gates;
  }

  /** The routable instances. A health change is seen on the next read, so no router needs to subscribe. */
  get instances(): readonly Instance<Req, Out>[] {
    if (this.routableAt !== this.health.version) this.refreshRoutable();
    return this.routable;
  }

  setInstances(instances: readonly Instance<Req, Out>[]): void {
    this.live = [...instances].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.refreshRoutable();
  }

  /** Every discovered instance, down ones included. */
  get instanceIds(): bigint[] {
    return this.live.map((i) => i.id);
  }

  /** The policy forgets a down instance (the kv indexer drops its blocks) as it would one that left. */
  private refreshRoutable(): void {
    this.routableAt = this.health.version;
    this.routable = this.live.filter((i) => !this.health.isDown(i.id));
    this.policy.onInstancesChanged?.(this.routable);
  }

  /**
   * Routing errors (unknown pinned instance, no instances, all busy) are thrown here, synchronously,
   * unless the request waited in the router queue or the policy's prepare step first.
   */
  generate(request: Req, ctx: GenerateContext): AsyncIterable<Out> {
    return this.dispatch({ request, ctx, candidates: this.instances, target: null });
  }

  /** The instance a request would go to now, without queueing or dispatching it. */
  pick(request: Req): Instance<Req, Out> {
    const decision: Decision<Req, Out> = { request, candidates: this.instances, target: null };
    for (const step of this.choose) step(decision);
    return targetOf(decision);
  }

  /**
   * Where a request would go now and what the policy tracks of that worker, without dispatching
   * it or counting a decision; null when the policy cannot tell. Throws as routing would (no
   * worker, every worker busy, an unknown pinned one).
   */
  preview(request: Req): WorkerPreview | null {
    if (!this.policy.preview) return null;
    const decision: Decision<Req, Out> = { request, candidates: this.instances, target: null };
    for (const step of this.gates) step(decision);
    return this.policy.preview(decision.target ? [decision.target] : decision.candidates, request);
  }
}

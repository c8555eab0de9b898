import { allWorkersBusyError, anyThresholdSet, busyReason, NO_BUSY_THRESHOLDS, type BusyThresholds } from './busy.js';
import { LoadTracker, observeStream, type StreamObserver } from './load-tracker.js';
import {
  NotFoundError,
  modelNotReadyError,
  ValidationError,
  type EngineClient,
  type GenerateContext,
  type LLMEngineOutput,
  type PreprocessedRequest,
} from '../protocols/index.js';

/** One routable worker instance of a model. */
export interface WorkerInstance {
  /** Upstream instance ids are u64; kept as bigint so ids above 2^53 stay exact. */
  readonly id: bigint;
  readonly client: EngineClient;
  /** `cpu` for CPU-only workers (device-aware-weighted routing); accelerators otherwise. */
  readonly deviceType?: 'cpu' | 'cuda';
  /** The worker's published KV capacity and use, for busy detection. */
  readonly capacity?: () => WorkerCapacity;
}

export interface WorkerCapacity {
  kvUsedBlocks: number;
  kvTotalBlocks: number;
  maxNumBatchedTokens?: number;
}

/** Picks an instance for a request. One implementation per router mode. */
export interface RouterPolicy {
  select(instances: readonly WorkerInstance[], request: PreprocessedRequest): WorkerInstance;
  /** The request was dispatched to `instance` (chosen by select, or pinned): observe its stream. */
  track?(instance: WorkerInstance, request: PreprocessedRequest, requestId: string): StreamObserver | null;
  /** A promise to wait on before routing (the router queue), or null to route at once. */
  admission?(instances: readonly WorkerInstance[], request: PreprocessedRequest, signal: AbortSignal): Promise<void> | null;
  onInstancesChanged?(instances: readonly WorkerInstance[]): void;
}

export class RoundRobinPolicy implements RouterPolicy {
  private next = 0;
  select(instances: readonly WorkerInstance[]): WorkerInstance {
    const chosen = instances[this.next % instances.length]!;
    this.next = (this.next + 1) % instances.length;
    return chosen;
  }
}

export class RandomPolicy implements RouterPolicy {
  select(instances: readonly WorkerInstance[]): WorkerInstance {
    return instances[Math.floor(Math.random() * instances.length)]!;
  }
}

/** Only requests that name their instance (nvext.backend_instance_id or routing headers). */
export class DirectPolicy implements RouterPolicy {
  select(): WorkerInstance {
    throw new ValidationError(
      'Validation: --router-mode direct needs a target instance: set nvext.backend_instance_id or the x-dynamo-worker-instance-id header',
    );
  }
}

function parseInstanceId(raw: string | number): bigint | null {
  try {
    return typeof raw === 'number' ? BigInt(Math.trunc(raw)) : BigInt(raw.trim());
  } catch {
    return null;
  }
}

/**
 * Routes each request to one instance of a model. A request pinned to an instance
 * (backend_instance_id / decode_worker_id) bypasses the policy.
 */
export class PushRouter implements EngineClient {
  private instances: WorkerInstance[] = [];
  readonly load: LoadTracker;
  /** Busy thresholds; replaced at runtime by `/busy_threshold`. */
  busyThresholds: BusyThresholds;

  constructor(
    private readonly modelName: string,
    readonly policy: RouterPolicy,
    opts: { load?: LoadTracker; busyThresholds?: BusyThresholds } = {},
  ) {
    this.load = opts.load ?? new LoadTracker();
    this.busyThresholds = opts.busyThresholds ?? NO_BUSY_THRESHOLDS;
  }

  setInstances(instances: readonly WorkerInstance[]): void {
    this.instances = [...instances].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.policy.onInstancesChanged?.(this.instances);
  }

  get instanceIds(): bigint[] {
    return this.instances.map((i) => i.id);
  }

  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    const pinned = request.routing?.backend_instance_id ?? request.routing?.decode_worker_id;
    const wait = pinned === undefined || pinned === null ? this.admission(request, ctx.signal) : null;
    return wait ? this.dispatchAfter(wait, request, ctx) : this.dispatch(request, ctx);
  }

  private admission(request: PreprocessedRequest, signal: AbortSignal): Promise<void> | null {
    if (!this.policy.admission || this.instances.length === 0) return null;
    return this.policy.admission(this.eligibleInstances(), request, signal);
  }

  private async *dispatchAfter(wait: Promise<void>, request: PreprocessedRequest, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
    await wait;
    yield* this.dispatch(request, ctx);
  }

  private dispatch(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    const instance = this.pick(request);
    const phases = this.load.start(instance.id, request.token_ids.length);
    const observer = this.policy.track?.(instance, request, ctx.requestId) ?? null;
    const end = (): void => {
      phases.end();
      observer?.onEnd();
    };
    let stream: AsyncIterable<LLMEngineOutput>;
    try {
      stream = instance.client.generate(request, ctx);
    } catch (err) {
      end();
      throw err;
    }
    return observeStream(stream, {
      onOutput(out) {
        phases.firstOutput();
        observer?.onOutput(out);
      },
      onEnd: end,
    });
  }

  pick(request: PreprocessedRequest): WorkerInstance {
    const pinned = request.routing?.backend_instance_id ?? request.routing?.decode_worker_id;
    if (pinned !== undefined && pinned !== null) {
      const id = parseInstanceId(pinned);
      const target = id === null ? undefined : this.instances.find((i) => i.id === id);
      if (!target) throw new NotFoundError(`Worker instance ${String(pinned)} not found for model ${this.modelName}`);
      return target;
    }
    if (this.instances.length === 0) {
      throw modelNotReadyError(this.modelName);
    }
    return this.policy.select(this.eligibleInstances(), request);
  }

  /** Instances not over a busy threshold; OverloadedError when that leaves none. */
  private eligibleInstances(): WorkerInstance[] {
    const t = this.busyThresholds;
    if (!anyThresholdSet(t)) return this.instances;
    let reason: string | null = null;
    const free = this.instances.filter((inst) => {
      const cap = inst.capacity?.();
      const why = busyReason(t, { ...cap, activePrefillTokens: this.load.prefillTokens(inst.id) });
      reason ??= why;
      return why === null;
    });
    if (free.length === 0) throw allWorkersBusyError(this.modelName, this.instances.length, reason ?? 'busy');
    return free;
  }
}

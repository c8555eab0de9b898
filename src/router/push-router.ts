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
}

/** Picks an instance for a request. One implementation per router mode. */
export interface RouterPolicy {
  select(instances: readonly WorkerInstance[], request: PreprocessedRequest): WorkerInstance;
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

export type PushRouterMode = 'round-robin' | 'random' | 'direct';

export function createRouterPolicy(mode: PushRouterMode): RouterPolicy {
  switch (mode) {
    case 'round-robin':
      return new RoundRobinPolicy();
    case 'random':
      return new RandomPolicy();
    case 'direct':
      return new DirectPolicy();
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

  constructor(
    private readonly modelName: string,
    private readonly policy: RouterPolicy,
  ) {}

  setInstances(instances: readonly WorkerInstance[]): void {
    this.instances = [...instances].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  get instanceIds(): bigint[] {
    return this.instances.map((i) => i.id);
  }

  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    return this.pick(request).client.generate(request, ctx);
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
    return this.policy.select(this.instances, request);
  }
}

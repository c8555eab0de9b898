// Policy-class queues (upstream's `policy_classes` of a router policy file): each request is put in
// one class, and each class has its own busy line, queue order, share of releases and queue limits.
// A request waits in its class's queue while every eligible worker is over that class's line (or
// others of its class already wait); as load frees, the classes' queues release in turn, each up to
// its `quantum` per round (deficit round robin, counted in requests).
// Without a policy file the flags make one class, `default`: the old single router queue.
import { OverloadedError, type QueuePolicy } from '../../protocols/index.js';
import { PendingQueue } from './pending-queue.js';

export interface PolicyClassSpec {
  readonly name: string;
  readonly queuePolicy: QueuePolicy;
  /** Releases per round relative to the other classes. */
  readonly quantum: number;
  /** Busy while a worker's active prefill tokens exceed this; null: no such line. */
  readonly prefillBusyThreshold: number | null;
  /** Busy while a worker's active prefill tokens exceed this multiple of its max_num_batched_tokens; null: no such line. */
  readonly prefillBusyThresholdFrac: number | null;
  /** Per discovered worker: queued requests, their prompt tokens and their cached tokens beyond which the next is refused (529). */
  readonly requestQueueLimitPerWorker: number | null;
  readonly rawIslTokenQueueLimitPerWorker: number | null;
  readonly cachedTokenQueueLimitPerWorker: number | null;
}

/** Family × uncached-prompt bucket → class; a header naming an explicit class picks it directly. */
export interface ClassMatrix {
  readonly defaultFamily: string;
  /** Ascending; the first starts at 0. */
  readonly buckets: readonly { readonly name: string; readonly minTokens: number }[];
  /** family → bucket name → class index. */
  readonly classes: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Classes with neither family nor bucket: name → class index. */
  readonly explicit: Readonly<Record<string, number>>;
}

export interface PolicyProfile {
  readonly classes: readonly PolicyClassSpec[];
  /** Null: every request is in the one class. */
  readonly matrix: ClassMatrix | null;
}

/** The class the flags describe: `--router-queue-threshold` (unset: no queue) and `--router-queue-policy`. */
export function singleClassProfile(prefillBusyThresholdFrac: number | null, queuePolicy: QueuePolicy): PolicyProfile {
  return {
    classes: [
      {
        name: 'default',
        queuePolicy,
        quantum: 1,
        prefillBusyThreshold: null,
        prefillBusyThresholdFrac,
        requestQueueLimitPerWorker: null,
        rawIslTokenQueueLimitPerWorker: null,
        cachedTokenQueueLimitPerWorker: null,
      },
    ],
    matrix: null,
  };
}

/** The class of a request: the header's explicit class, else its family (or the default) at its uncached-prompt bucket. */
export function classIndex(profile: PolicyProfile, requested: string | null | undefined, uncachedTokens: number): number {
  const m = profile.matrix;
  if (m === null) return 0;
  if (requested != null && Object.hasOwn(m.explicit, requested)) return m.explicit[requested]!;
  const family = requested != null && Object.hasOwn(m.classes, requested) ? requested : m.defaultFamily;
  let bucket = m.buckets[0]!;
  for (const b of m.buckets) if (b.minTokens <= uncachedTokens) bucket = b;
  return m.classes[family]![bucket.name]!;
}

/** What the queues need to know of a request and of the workers it may go to. */
export interface Arrival {
  readonly priorityJump: number;
  readonly rawTokens: number;
  readonly cachedTokens: number;
  /** Eligible workers now. */
  readonly workers: number;
  readonly signal: AbortSignal;
}

/** Whether every eligible worker is over a class's busy line. */
export type AllBusy = (busy: (activePrefillTokens: number, maxBatchedTokens: number) => boolean) => boolean;

class ClassQueue {
  readonly queue: PendingQueue;
  rawTokens = 0;
  cachedTokens = 0;
  deficit = 0;

  constructor(readonly spec: PolicyClassSpec, now?: () => number) {
    this.queue = new PendingQueue(spec.queuePolicy, now);
  }

  get queues(): boolean {
    return this.spec.prefillBusyThreshold !== null || this.spec.prefillBusyThresholdFrac !== null;
  }

  /** Over this class's line: an absolute or a fractional threshold exceeded (either is enough). */
  busy = (active: number, maxBatched: number): boolean => {
    const { prefillBusyThreshold: abs, prefillBusyThresholdFrac: frac } = this.spec;
    return (abs !== null && active > abs) || (frac !== null && active > frac * maxBatched);
  };

  /** Refuses the request when a limit is already reached (the one that crossed it was let in). */
  checkLimits(arrival: Arrival): void {
    const s = this.spec;
    const over = (limit: number | null, used: number): boolean => limit !== null && used >= limit * arrival.workers;
    const which = over(s.requestQueueLimitPerWorker, this.queue.size)
      ? ['requests', s.requestQueueLimitPerWorker!]
      : over(s.rawIslTokenQueueLimitPerWorker, this.rawTokens)
        ? ['prompt tokens', s.rawIslTokenQueueLimitPerWorker!]
        : over(s.cachedTokenQueueLimitPerWorker, this.cachedTokens)
          ? ['cached tokens', s.cachedTokenQueueLimitPerWorker!]
          : null;
    if (which === null) return;
    const [what, perWorker] = which as [string, number];
    throw new OverloadedError(`Policy class ${s.name} queue is full: ${perWorker * arrival.workers} queued ${what} (${perWorker} per worker × ${arrival.workers})`, {
      policy_class: s.name,
    });
  }

  wait(arrival: Arrival): Promise<void> {
    this.rawTokens += arrival.rawTokens;
    this.cachedTokens += arrival.cachedTokens;
    const left = (): void => {
      this.rawTokens -= arrival.rawTokens;
      this.cachedTokens -= arrival.cachedTokens;
    };
    const waiting = this.queue.wait({ priorityJump: arrival.priorityJump, uncachedTokens: arrival.rawTokens - arrival.cachedTokens, signal: arrival.signal });
    return waiting.then(left, (err: unknown) => {
      left();
      throw err;
    });
  }
}

export class PolicyClassQueues {
  private readonly queues: ClassQueue[];
  private cursor = 0;

  constructor(
    readonly profile: PolicyProfile,
    now?: () => number,
  ) {
    this.queues = profile.classes.map((spec) => new ClassQueue(spec, now));
  }

  /** True when no class can queue: admission then costs nothing. */
  get inert(): boolean {
    return this.queues.every((q) => !q.queues);
  }

  /** True when classifying needs the request's cached tokens (a bucket matrix). */
  get classifiesByCache(): boolean {
    return this.profile.matrix !== null;
  }

  get size(): number {
    let n = 0;
    for (const q of this.queues) n += q.queue.size;
    return n;
  }

  /** Queued requests per class name (for /metrics and logs). */
  sizes(): Record<string, number> {
    return Object.fromEntries(this.queues.map((q) => [q.spec.name, q.queue.size]));
  }

  /** A promise to wait on before routing, or null to go on at once; throws when the class's queue is full. */
  admit(index: number, arrival: Arrival, allBusy: AllBusy): Promise<void> | null {
    const q = this.queues[index]!;
    if (!q.queues) return null;
    if (q.queue.size === 0 && !allBusy(q.busy)) return null;
    q.checkLimits(arrival);
    return q.wait(arrival);
  }

  /**
   * Releases one queued request whose class has room, the classes taking turns by deficit round
   * robin: a class's turn adds its quantum, each release spends one, and an emptied queue forfeits
   * what it had left. One per call: the released request adds load only once it is dispatched.
   */
  releaseOne(allBusy: AllBusy): void {
    const n = this.queues.length;
    for (let step = 0; step < n; step++) {
      const q = this.queues[this.cursor]!;
      if (q.queue.size > 0 && !allBusy(q.busy)) {
        if (q.deficit < 1) q.deficit += q.spec.quantum;
        q.queue.releaseOne(() => true);
        q.deficit -= 1;
        if (q.queue.size === 0) q.deficit = 0;
        if (q.deficit < 1) this.advance();
        return;
      }
      if (q.queue.size === 0) q.deficit = 0;
      this.advance();
    }
  }

  private advance(): void {
    this.cursor = (this.cursor + 1) % this.queues.length;
  }
}

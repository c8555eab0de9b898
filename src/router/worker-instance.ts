// One routable worker instance of a model, as the router and its policies see it.
import type { EngineClient, GenerateContext } from '../protocols/index.js';

/** Anything that serves one kind of request as a stream: an EngineClient, a TensorEngine. */
export interface StreamingEngine<Req, Out> {
  generate(request: Req, ctx: GenerateContext): AsyncIterable<Out>;
}

/** One routable worker instance of a model. */
export interface WorkerInstance<C = EngineClient> {
  /** Upstream instance ids are u64; kept as bigint so ids above 2^53 stay exact. */
  readonly id: bigint;
  readonly client: C;
  /** `cpu` for CPU-only workers (device-aware-weighted routing); accelerators otherwise. */
  readonly deviceType?: 'cpu' | 'cuda';
  /** The worker's published KV capacity and use, for busy detection. */
  readonly capacity?: () => WorkerCapacity;
  /** Its data-parallel ranks, as its card says (`data_parallel_start_rank`, `data_parallel_size`); absent: one rank, 0. */
  readonly dpRanks?: DpRanks;
}

/** The global dp ranks `[start, start + size)` of a worker. */
export interface DpRanks {
  readonly start: number;
  readonly size: number;
}

export interface WorkerCapacity {
  kvUsedBlocks: number;
  kvTotalBlocks: number;
  maxNumBatchedTokens?: number;
}

/** Any instance, whatever its client: what policies look at (ids, device, capacity). */
export type AnyInstance = WorkerInstance<unknown>;

/** Upstream's default max_num_batched_tokens, for workers that do not publish theirs. */
const DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192;

/** The prefill tokens a worker batches per step: the unit of prefill busy lines. */
export function maxBatchedTokensOf(inst: AnyInstance): number {
  return inst.capacity?.().maxNumBatchedTokens ?? DEFAULT_MAX_NUM_BATCHED_TOKENS;
}

// Disaggregated serving (reference/disagg-router.md §1.3): a request of a model with a prefill pool
// first goes to a prefill worker (chosen by the prefill pool's own router) with max_tokens 1; the
// worker's transfer parameters then go with the request to the decode worker, chosen by the model's
// router over the decode pool. The caller sees one ordinary stream: the decode worker's.
import {
  InternalError,
  isDynamoError,
  UnavailableError,
  WorkerLostError,
  type DispatchInfo,
  type EngineClient,
  type GenerateContext,
  type LLMEngineOutput,
  type PreprocessedRequest,
  type RoutingHints,
} from '../protocols/index.js';
import type { LoadTracker } from './load-tracker.js';
import type { AnyInstance } from './worker-instance.js';

/** The prefill pool: a router over the prefill workers. */
export interface PrefillPool extends EngineClient {
  /** Its routable instances; none means no prefill hop is possible. */
  readonly instances: readonly AnyInstance[];
  /** Its requests in flight per instance (read by /metrics). */
  readonly load: LoadTracker;
}

/** The decode hop: the model's router dispatching one request. */
export type DecodeHop = (request: PreprocessedRequest, ctx: GenerateContext) => AsyncIterable<LLMEngineOutput>;

export class Disaggregation {
  private pool: PrefillPool | null = null;
  /** The model's workers are decode workers: they need a prefill worker, or --decode-fallback. */
  private decodeNeedsPrefill = false;

  constructor(
    private readonly modelName: string,
    /** `--decode-fallback`: with no prefill worker, decode workers serve aggregated instead of a 503. */
    private readonly decodeFallback: boolean,
  ) {}

  /** Discovery's view of the model: its prefill pool (null while none was seen) and whether its workers are decode workers. */
  setPools(pool: PrefillPool | null, decodeNeedsPrefill: boolean): void {
    this.pool = pool;
    this.decodeNeedsPrefill = decodeNeedsPrefill;
  }

  /** The prefill pool's router, once discovery saw a prefill worker. */
  get prefillPool(): PrefillPool | null {
    return this.pool;
  }

  /** True while requests take the prefill hop. */
  get active(): boolean {
    return this.pool !== null && this.pool.instances.length > 0;
  }

  /**
   * Routes one request through both hops, or straight to `decode` when the model is aggregated.
   * Errors of the prefill routing (pinned instance unknown, all busy) are thrown here; a decode
   * pool without prefill workers is a 503 unless --decode-fallback.
   */
  generate(request: PreprocessedRequest, ctx: GenerateContext, decode: DecodeHop): AsyncIterable<LLMEngineOutput> {
    const pool = this.pool;
    if (pool === null || pool.instances.length === 0) {
      if (this.decodeNeedsPrefill && !this.decodeFallback) {
        throw new UnavailableError(
          `Model ${this.modelName} has decode workers but no prefill worker: start a prefill worker (dynamo-ts mocker --disaggregation-mode prefill), or run the frontend with --decode-fallback to serve aggregated on the decode workers`,
        );
      }
      return decode(request, ctx);
    }
    let prefillWorker: bigint | null = null;
    const observed = ctx.dispatched;
    const prefillCtx: GenerateContext = {
      ...ctx,
      dispatched: (info: DispatchInfo) => {
        prefillWorker = info.instanceId;
        return observed?.(info);
      },
    };
    const prefill = pool.generate(prefillRequest(request), prefillCtx);
    return {
      [Symbol.asyncIterator]: () => new PrefillThenDecode(prefill, () => prefillWorker, request, ctx, decode),
    };
  }
}

/** The prefill hop's request: one token, pinned to `prefill_worker_id` (else the backend instance), its rank. */
export function prefillRequest(request: PreprocessedRequest): PreprocessedRequest {
  const routing: RoutingHints = request.routing ?? {};
  const stop = request.stop_conditions ?? {};
  return {
    ...request,
    stop_conditions: { ...stop, max_tokens: 1, min_tokens: Math.min(stop.min_tokens ?? 0, 1) },
    routing: {
      ...routing,
      backend_instance_id: routing.prefill_worker_id ?? routing.backend_instance_id ?? null,
      decode_worker_id: null,
      dp_rank: routing.prefill_dp_rank ?? routing.dp_rank ?? null,
    },
    prefill_result: null,
  };
}

/** The decode hop's request: the original, with the hand-over and pinned to `decode_worker_id` (else the backend instance). */
export function decodeRequest(request: PreprocessedRequest, handover: LLMEngineOutput, prefillWorker: bigint | null): PreprocessedRequest {
  const routing: RoutingHints = request.routing ?? {};
  return {
    ...request,
    routing: {
      ...routing,
      backend_instance_id: routing.decode_worker_id ?? routing.backend_instance_id ?? null,
      prefill_worker_id: prefillWorker === null ? (routing.prefill_worker_id ?? null) : prefillWorker.toString(),
    },
    prefill_result: {
      disaggregated_params: handover.disaggregated_params,
      prompt_tokens_details: handover.completion_usage?.prompt_tokens_details ?? null,
    },
  };
}

/**
 * Reads the whole prefill stream (the pull hand-over of vLLM and TRT-LLM), then hands the decode
 * stream's outputs through one by one. A first output that ends the request for a reason other
 * than `length` (a stop or EOS on the first token) is the whole answer.
 */
class PrefillThenDecode implements AsyncIterator<LLMEngineOutput> {
  private decoding: AsyncIterator<LLMEngineOutput> | null = null;
  private done = false;
  private readonly prefill: AsyncIterator<LLMEngineOutput>;

  constructor(
    prefill: AsyncIterable<LLMEngineOutput>,
    private readonly prefillWorker: () => bigint | null,
    private readonly request: PreprocessedRequest,
    private readonly ctx: GenerateContext,
    private readonly decode: DecodeHop,
  ) {
    this.prefill = prefill[Symbol.asyncIterator]();
  }

  next(): Promise<IteratorResult<LLMEngineOutput>> {
    if (this.decoding) return this.decoding.next();
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    return this.runPrefill();
  }

  async return(): Promise<IteratorResult<LLMEngineOutput>> {
    this.done = true;
    await this.prefill.return?.();
    await this.decoding?.return?.();
    return { done: true, value: undefined };
  }

  private async runPrefill(): Promise<IteratorResult<LLMEngineOutput>> {
    let first: LLMEngineOutput | null = null;
    let handover: LLMEngineOutput | null = null;
    for (;;) {
      let r: IteratorResult<LLMEngineOutput>;
      try {
        r = await this.prefill.next();
      } catch (err) {
        throw prefillFailure(err);
      }
      if (r.done) break;
      if (r.value.finish_reason === 'error') {
        const reason = typeof r.value.stop_reason === 'string' ? r.value.stop_reason : 'the prefill worker reported an error';
        throw new InternalError(`Prefill execution failed: ${reason}`);
      }
      first ??= r.value;
      if (handover === null && r.value.disaggregated_params != null) handover = r.value;
    }
    if (this.done) return { done: true, value: undefined };
    if (first === null) throw new InternalError('Prefill execution failed: the prefill worker answered nothing');
    if (first.finish_reason != null && first.finish_reason !== 'length') {
      this.done = true;
      const { disaggregated_params: _dropped, ...terminal } = first;
      return { done: false, value: terminal };
    }
    if (handover === null) {
      throw new InternalError('No disaggregated params in prefill response: Prefill router output missing disaggregated_params');
    }
    // A client gone after prefill still reaches decode, which ends at once on the aborted signal.
    const stream = this.decode(decodeRequest(this.request, handover, this.prefillWorker()), this.ctx);
    this.decoding = stream[Symbol.asyncIterator]();
    return this.decoding.next();
  }
}

/**
 * A failed prefill fails the request as `Prefill execution failed: …` (upstream's words), keeping
 * the error's kind: a 400 from the prefill worker stays a 400. A lost prefill worker stays a lost
 * worker, the signal the routing layers act on (the instance leaves routing, migration may re-send).
 */
function prefillFailure(err: unknown): unknown {
  if (err instanceof WorkerLostError) return err;
  if (isDynamoError(err)) {
    err.message = `Prefill execution failed: ${err.message}`;
    return err;
  }
  return new InternalError(`Prefill execution failed: ${err instanceof Error ? err.message : String(err)}`);
}

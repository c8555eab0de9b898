// Disaggregated serving (reference/disagg-router.md §1.3): a request of a model with a prefill pool
// first goes to a prefill worker (chosen by the prefill pool's own router) with max_tokens 1; the
// worker's transfer parameters then go with the request to the decode worker, chosen by the model's
// router over the decode pool. The caller sees one ordinary stream: the decode worker's.
// With conditional disaggregation (conditional-disagg.ts) a request may instead prefill on its
// decode worker. Every prefill decision is counted by decision and reason, and logged at debug.
import {
  BYPASS_REMOTE_PREFILL,
  InternalError,
  isDynamoError,
  iterableOf,
  OverloadedError,
  UnavailableError,
  WorkerLostError,
  type DispatchInfo,
  type EngineClient,
  type GenerateContext,
  type LLMEngineOutput,
  type PreprocessedRequest,
  type RoutingHints,
} from '../protocols/index.js';
import {
  decidePrefill,
  LOAD_AWARE_POLICIES,
  type ConditionalDisaggSettings,
  type PrefillDecision,
  type PrefillReason,
  type PrefillVerdict,
} from './conditional-disagg.js';
import type { LoadTracker } from './load-tracker.js';
import type { WorkerPreview } from './policies/index.js';
import { maxBatchedTokensOf, type AnyInstance } from './worker-instance.js';

/** The prefill pool: a router over the prefill workers. */
export interface PrefillPool extends EngineClient {
  /** Its routable instances; none means no prefill hop is possible. */
  readonly instances: readonly AnyInstance[];
  /** Its requests in flight per instance (read by /metrics). */
  readonly load: LoadTracker;
  /** The prefill worker a request would go to now (see Router.preview); absent: its load is not known. */
  preview?(request: PreprocessedRequest): WorkerPreview | null;
}

/** The decode hop: the model's router dispatching one request. */
export type DecodeHop = (request: PreprocessedRequest, ctx: GenerateContext) => AsyncIterable<LLMEngineOutput>;

/** Where prefill decisions are logged, at debug. */
export interface DecisionLogger {
  debug(obj: object, msg: string): void;
}

/** `--router-conditional-disagg`: its settings, and where the model's router would send a request now. */
export interface ConditionalDisagg {
  readonly settings: ConditionalDisaggSettings;
  readonly previewDecode: (request: PreprocessedRequest) => WorkerPreview | null;
}

/** How many prefill decisions of each kind were made, by decision and reason. */
export interface PrefillDecisionCount extends PrefillVerdict {
  readonly count: number;
}

const quiet: DecisionLogger = { debug: () => undefined };

export class Disaggregation {
  private pool: PrefillPool | null = null;
  /** The model's workers are decode workers: they need a prefill worker, or --decode-fallback. */
  private decodeNeedsPrefill = false;
  private readonly decisions = new Map<string, { decision: PrefillDecision; reason: PrefillReason; count: number }>();

  constructor(
    private readonly modelName: string,
    /** `--decode-fallback`: with no prefill worker, decode workers serve aggregated instead of a 503. */
    private readonly decodeFallback: boolean,
    /** Null: every request prefills remotely. */
    private readonly conditional: ConditionalDisagg | null = null,
    private readonly logger: DecisionLogger = quiet,
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

  /** Every prefill decision so far, by decision and reason (read by /metrics). */
  prefillDecisions(): PrefillDecisionCount[] {
    return [...this.decisions.values()].map((d) => ({ ...d }));
  }

  /**
   * Where this request prefills. Remote unless conditional disaggregation is on and its policy,
   * given what the two routers would pick now, says the decode worker should.
   */
  private decide(request: PreprocessedRequest, pool: PrefillPool): { verdict: PrefillVerdict; decodeWorker: WorkerPreview | null } {
    const remote = (reason: PrefillReason) => ({ verdict: { decision: 'remote' as const, reason }, decodeWorker: null });
    if (this.conditional === null) return remote('conditional_disagg_off');
    const { settings, previewDecode } = this.conditional;
    if (request.routing?.prefill_worker_id != null) return remote('prefill_pinned');
    const decodeWorker = previewOrNull(() => previewDecode(request));
    if (decodeWorker === null) return remote('no_decode_preview');
    let prefillBusy: boolean | null = null;
    const busyLine = settings.prefillBusyThreshold;
    if (LOAD_AWARE_POLICIES.has(settings.policy) && busyLine !== null && pool.preview) {
      try {
        const p = pool.preview(prefillRequest(request));
        prefillBusy = p === null ? null : p.activePrefillTokens > busyLine * maxBatchedTokensOf(p.instance);
      } catch (err) {
        // Every prefill worker over the busy gate is as busy as a prefill pool gets.
        prefillBusy = err instanceof OverloadedError ? true : null;
      }
    }
    const decodeLine = settings.decodeBusyThreshold;
    const kvTotal = decodeWorker.instance.capacity?.().kvTotalBlocks;
    const decodeBusy = decodeLine === null || kvTotal === undefined ? null : decodeWorker.projectedBlocks > decodeLine * kvTotal;
    const verdict = decidePrefill(settings, { promptTokens: request.token_ids.length, decodeCachedTokens: decodeWorker.cachedTokens, prefillBusy, decodeBusy });
    return { verdict, decodeWorker };
  }

  private record(requestId: string, verdict: PrefillVerdict, decodeWorker: WorkerPreview | null = null): void {
    const key = `${verdict.decision}/${verdict.reason}`;
    const entry = this.decisions.get(key);
    if (entry) entry.count++;
    else this.decisions.set(key, { ...verdict, count: 1 });
    this.logger.debug(
      {
        request_id: requestId,
        model: this.modelName,
        prefill: verdict.decision,
        reason: verdict.reason,
        ...(decodeWorker && { decode_worker_id: decodeWorker.instance.id.toString(), decode_cached_tokens: decodeWorker.cachedTokens }),
      },
      `prefill ${verdict.decision} (${verdict.reason})`,
    );
  }

  /**
   * Routes one request through both hops, or straight to `decode` when the model is aggregated.
   * Errors of the prefill routing (pinned instance unknown, all busy) are thrown here; a decode
   * pool without prefill workers is a 503 unless --decode-fallback.
   */
  generate(given: PreprocessedRequest, ctx: GenerateContext, decode: DecodeHop): AsyncIterable<LLMEngineOutput> {
    // Only this hop decides where a prompt is prefilled: a client's own bypass mark is dropped (upstream).
    const request = withoutBypassMark(given);
    const pool = this.pool;
    if (pool === null || pool.instances.length === 0) {
      if (this.decodeNeedsPrefill && !this.decodeFallback) {
        throw new UnavailableError(
          `Model ${this.modelName} has decode workers but no prefill worker: start a prefill worker (dynamo-ts mocker --disaggregation-mode prefill), or run the frontend with --decode-fallback to serve aggregated on the decode workers`,
        );
      }
      if (this.decodeNeedsPrefill) this.record(ctx.requestId, { decision: 'skipped', reason: 'no_prefill_workers' });
      return decode(request, ctx);
    }
    const { verdict, decodeWorker } = this.decide(request, pool);
    this.record(ctx.requestId, verdict, decodeWorker);
    if (verdict.decision === 'local') return decode(localPrefillRequest(request, decodeWorker!), ctx);
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
    return iterableOf(() => new PrefillThenDecode(prefill, () => prefillWorker, request, ctx, decode));
  }
}

function withoutBypassMark(request: PreprocessedRequest): PreprocessedRequest {
  if (!request.annotations?.includes(BYPASS_REMOTE_PREFILL)) return request;
  return { ...request, annotations: request.annotations.filter((a) => a !== BYPASS_REMOTE_PREFILL) };
}

/** A router's preview, or null when it cannot route the request now (the normal path then reports why). */
function previewOrNull(preview: () => WorkerPreview | null): WorkerPreview | null {
  try {
    return preview();
  } catch {
    return null;
  }
}

/**
 * A request that prefills on its decode worker: marked for it (upstream's annotation, which tells
 * a decode worker to compute the prompt itself) and pinned to the worker the decision looked at.
 */
export function localPrefillRequest(request: PreprocessedRequest, worker: WorkerPreview): PreprocessedRequest {
  const routing: RoutingHints = request.routing ?? {};
  return {
    ...request,
    annotations: [...(request.annotations ?? []), BYPASS_REMOTE_PREFILL],
    routing: {
      ...routing,
      backend_instance_id: worker.instance.id.toString(),
      dp_rank: routing.dp_rank ?? worker.dpRank ?? null,
    },
  };
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

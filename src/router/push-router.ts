// The router of an LLM model: PreprocessedRequests to the model's worker instances. With a prefill
// pool (disaggregated serving), each request takes the prefill hop first (disaggregation.ts) and
// this router then chooses its decode worker.
import type { EngineClient, GenerateContext, LLMEngineOutput, PreprocessedRequest } from '../protocols/index.js';
import type { ConditionalDisaggSettings } from './conditional-disagg.js';
import { Disaggregation, type DecisionLogger, type DecodeHop } from './disaggregation.js';
import type { MigrationSettings } from './layers/index.js';
import type { RouterPolicy } from './policies/index.js';
import { LLM_REQUESTS } from './request-views.js';
import { LLM_RESUMABLE } from './resumable-requests.js';
import { Router, type RouterOptions } from './router.js';

export interface PushRouterOptions extends Omit<RouterOptions, 'migration'> {
  /** Requests move mid-stream by re-sending their generated tokens (LLM_RESUMABLE). */
  migration?: MigrationSettings;
  /** `--decode-fallback`: decode workers without a prefill pool serve aggregated instead of a 503. */
  decodeFallback?: boolean;
  /** `--router-conditional-disagg`: some requests prefill on their decode worker; null or absent: none. */
  conditionalDisagg?: ConditionalDisaggSettings | null;
  /** Where prefill decisions are logged, at debug. */
  decisionLogger?: DecisionLogger;
}

export class PushRouter extends Router<PreprocessedRequest, LLMEngineOutput> implements EngineClient {
  /** The prefill hop; discovery gives it the model's prefill pool. */
  readonly disaggregation: Disaggregation;
  private readonly decodeHop: DecodeHop = (request, ctx) => super.generate(request, ctx);

  constructor(
    modelName: string,
    policy: RouterPolicy,
    { migration, decodeFallback = false, conditionalDisagg = null, decisionLogger, ...opts }: PushRouterOptions = {},
  ) {
    super(modelName, policy, LLM_REQUESTS, { ...opts, migration: migration && { ...migration, resumable: LLM_RESUMABLE } });
    const conditional = conditionalDisagg && { settings: conditionalDisagg, previewDecode: (request: PreprocessedRequest) => this.preview(request) };
    this.disaggregation = new Disaggregation(modelName, decodeFallback, conditional, decisionLogger);
  }

  override generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    // Without a decode worker the model is not ready, prefill pool or not: the routing layers say so.
    if (this.instances.length === 0) return super.generate(request, ctx);
    return this.disaggregation.generate(request, ctx, this.decodeHop);
  }
}

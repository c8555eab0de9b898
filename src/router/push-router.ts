// The router of an LLM model: PreprocessedRequests to the model's worker instances.
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../protocols/index.js';
import type { RouterPolicy } from './policy.js';
import { LLM_REQUESTS } from './request-views.js';
import { Router, type RouterOptions } from './router.js';

export class PushRouter extends Router<PreprocessedRequest, LLMEngineOutput> implements EngineClient {
  constructor(modelName: string, policy: RouterPolicy, opts: RouterOptions = {}) {
    super(modelName, policy, LLM_REQUESTS, opts);
  }
}

// The router of an LLM model: PreprocessedRequests to the model's worker instances.
import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../protocols/index.js';
import type { MigrationSettings } from './layers/index.js';
import type { RouterPolicy } from './policy.js';
import { LLM_REQUESTS } from './request-views.js';
import { LLM_RESUMABLE } from './resumable-requests.js';
import { Router, type RouterOptions } from './router.js';

export interface PushRouterOptions extends Omit<RouterOptions, 'migration'> {
  /** Requests move mid-stream by re-sending their generated tokens (LLM_RESUMABLE). */
  migration?: MigrationSettings;
}

export class PushRouter extends Router<PreprocessedRequest, LLMEngineOutput> implements EngineClient {
  constructor(modelName: string, policy: RouterPolicy, { migration, ...opts }: PushRouterOptions = {}) {
    super(modelName, policy, LLM_REQUESTS, { ...opts, migration: migration && { ...migration, resumable: LLM_RESUMABLE } });
  }
}

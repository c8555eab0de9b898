// What routing reads from each kind of request it routes: the instance a request is pinned to and
// the prompt tokens that count as prefill load.
import type { NvCreateTensorRequest, PreprocessedEmbeddingRequest, PreprocessedRequest } from '../protocols/index.js';

export interface RequestView<Req> {
  /** The instance the request names, or null to let the router choose. */
  pinnedInstance(request: Req): string | number | null;
  /** Prompt tokens the worker has to prefill: load from dispatch until the first output. */
  promptTokens(request: Req): number;
  /** The session the request belongs to (session affinity), or null. */
  sessionId(request: Req): string | null;
  /** The request with the dp rank the router chose for it; absent for kinds that carry no rank. */
  withDpRank?<R extends Req>(request: R, dpRank: number): R;
}

/** LLM requests: pinned by nvext.backend_instance_id (or the decode worker of a disaggregated pair). */
export const LLM_REQUESTS: RequestView<PreprocessedRequest> = {
  pinnedInstance: (r) => r.routing?.backend_instance_id ?? r.routing?.decode_worker_id ?? null,
  promptTokens: (r) => r.token_ids.length,
  sessionId: (r) => r.routing?.session_id ?? null,
  withDpRank: (r, dpRank) => ({ ...r, routing: { ...r.routing, dp_rank: dpRank } }),
};

/** Requests with no routing hints and no prompt to prefill: tensors, images, videos. */
export const UNHINTED_REQUESTS: RequestView<unknown> = {
  pinnedInstance: () => null,
  promptTokens: () => 0,
  sessionId: () => null,
};

export const TENSOR_REQUESTS: RequestView<NvCreateTensorRequest> = UNHINTED_REQUESTS;

/** Embedding requests: every input's tokens are prefill work. */
export const EMBEDDING_REQUESTS: RequestView<PreprocessedEmbeddingRequest> = {
  pinnedInstance: () => null,
  promptTokens: (r) => r.token_ids.reduce((sum, ids) => sum + ids.length, 0),
  sessionId: () => null,
};

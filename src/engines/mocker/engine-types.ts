// The engines the mocker simulates, by `--engine-type` name (reference/disagg-router.md §4): their
// default KV block (page) size and how their schedulers batch. All of them publish the same KV
// events (Dynamo's), so the router consumes every type alike.

export type EngineType = 'vllm' | 'sglang' | 'trtllm';

export interface EngineProfile {
  /** Default tokens per KV block: vLLM 64, SGLang's page size 1, TRT-LLM 32. */
  readonly blockSize: number;
  /** Most prompt tokens prefilled in one step (SGLang `max_prefill_tokens`); null: the step's token budget alone. */
  readonly maxPrefillTokens: number | null;
  /** Most prompt tokens of one request in one step (SGLang `chunked_prefill_size`); null: no cap of its own. */
  readonly chunkedPrefillSize: number | null;
  /**
   * Admission reserves KV blocks for the prompt and the whole answer (TRT-LLM
   * `guaranteed_no_evict`), so a running request is never preempted; null: admission counts the
   * prompt only and running requests are preempted (vLLM) or retracted (SGLang) under pressure.
   */
  readonly reservedOutputTokens: ((maxTokens: number) => number) | null;
}

export const ENGINE_TYPES: Readonly<Record<EngineType, EngineProfile>> = {
  vllm: { blockSize: 64, maxPrefillTokens: null, chunkedPrefillSize: null, reservedOutputTokens: null },
  sglang: { blockSize: 1, maxPrefillTokens: 16384, chunkedPrefillSize: 8192, reservedOutputTokens: null },
  trtllm: { blockSize: 32, maxPrefillTokens: null, chunkedPrefillSize: null, reservedOutputTokens: (maxTokens) => maxTokens },
};

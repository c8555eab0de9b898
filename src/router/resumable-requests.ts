// What migration needs from a kind of request to move it, mid-stream, to another worker: the
// tokens of each output, the request re-sent with those tokens appended to its prompt, and the
// final usage restated for the whole answer. Only LLM requests can move; other kinds are retried
// elsewhere only while nothing has been answered.
import type { LLMEngineOutput, PreprocessedRequest } from '../protocols/index.js';

export interface ResumableRequests<Req, Out> {
  /** Why the request's state cannot move to another worker, or null when it can. */
  unmovable(request: Req): string | null;
  /** Prompt tokens of the request as the client sent it. */
  promptLength(request: Req): number;
  /** Token ids an output carries. */
  tokens(out: Out): readonly number[];
  /** True on the output that finishes the request. */
  finished(out: Out): boolean;
  /**
   * True on a bare cancellation (a finishing output that carries no tokens): what a worker that
   * shuts down may send before its engine-shutdown error, so it is not yet the request's end.
   */
  cancelFrame(out: Out): boolean;
  /** `request` re-sent with `generated` appended to its prompt and its token budget reduced by as many. */
  resume(request: Req, generated: readonly number[]): Req;
  /** An output of a resumed request as the client sees it: its usage counts `replayed` as generated, not prompt. */
  restate(out: Out, replayed: number): Out;
}

const minus = (value: number | null | undefined, by: number): number | null | undefined =>
  value == null ? value : Math.max(0, value - by);

export const LLM_RESUMABLE: ResumableRequests<PreprocessedRequest, LLMEngineOutput> = {
  unmovable(request) {
    // A decoding FSM or other choices' state cannot be carried over (upstream switches migration off too).
    if (request.sampling_options?.guided_decoding) return 'guided decoding: the decoding state is not transferable';
    if ((request.sampling_options?.n ?? 1) > 1) return 'n>1 request: per-choice generation state is not transferable';
    return null;
  },
  promptLength: (request) => request.token_ids.length,
  tokens: (out) => out.token_ids ?? [],
  finished: (out) => out.finish_reason != null,
  cancelFrame: (out) => out.finish_reason === 'cancelled' && (out.token_ids?.length ?? 0) === 0,
  resume(request, generated) {
    const stop = request.stop_conditions ?? {};
    // A hand-over from a prefill worker covered the first attempt's prompt only: the next worker prefills itself.
    return {
      ...request,
      prefill_result: null,
      token_ids: [...request.token_ids, ...generated],
      stop_conditions: { ...stop, max_tokens: minus(stop.max_tokens, generated.length), min_tokens: minus(stop.min_tokens, generated.length) },
    };
  },
  restate(out, replayed) {
    const usage = out.completion_usage;
    if (!usage || replayed === 0) return out;
    const prompt = Math.max(0, usage.prompt_tokens - replayed);
    const completion = usage.completion_tokens + replayed;
    const cached = usage.prompt_tokens_details?.cached_tokens;
    return {
      ...out,
      completion_usage: {
        ...usage,
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        ...(cached != null ? { prompt_tokens_details: { ...usage.prompt_tokens_details, cached_tokens: Math.min(cached, prompt) } } : {}),
      },
    };
  },
};

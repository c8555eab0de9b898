import type { EngineClient, PreprocessedRequest } from '../protocols/index.js';
import { mergeAsync } from './merge-async.js';
import { decodeStream, type DecodedStep, type TokenTable } from './postprocess/index.js';
import type { EngineCallHooks } from './request-lifecycle.js';

export interface GenerationTarget {
  engine: EngineClient;
  tokenTable: TokenTable;
}

export interface PromptRun {
  request: PreprocessedRequest;
  promptTokens: number;
}

/** The choices of one request: where they run, their prompts, and what every engine call carries. */
export interface ChoicesRequest {
  target: GenerationTarget;
  prompts: readonly PromptRun[];
  /** Choices per prompt. */
  n: number;
  requestId: string;
  /** Aborting it stops every engine request. */
  signal: AbortSignal;
  /** Travels to every engine request in its context. */
  metadata?: Readonly<Record<string, string>>;
  /** The request's lifecycle hears of re-sends to another worker and, when observed, of each dispatch. */
  hooks?: EngineCallHooks;
}

/**
 * Start every choice of every prompt and merge their detokenized steps. Choice `i` of prompt `p`
 * has index `p * n + i`. Routing happens here, synchronously, so "no workers" or "unknown instance"
 * errors surface before a response is committed. Every engine call gets the request's own signal:
 * a choice that stops locally (a stop string seen here) closes its engine stream early instead,
 * which stops its engine without cancelling the other choices, and without a signal of its own
 * (an AbortSignal costs microseconds to make in Node 20, a linked pair more: felt on small requests).
 */
export function generateChoices({ target, prompts, n, requestId, signal, metadata, hooks }: ChoicesRequest): AsyncIterable<DecodedStep> {
  // Sized up front: most requests have one choice, and an empty array grown by a push makes room for 17.
  const streams = new Array<AsyncIterable<DecodedStep>>(prompts.length * n);
  const fanOut = streams.length > 1;
  for (let p = 0; p < prompts.length; p++) {
    const prompt = prompts[p]!;
    for (let i = 0; i < n; i++) {
      const index = p * n + i;
      const request = n > 1 ? withChoiceSeed(prompt.request, i) : prompt.request;
      const outputs = target.engine.generate(request, {
        requestId: fanOut ? `${requestId}-${index}` : requestId,
        signal,
        metadata,
        ...hooks,
      });
      streams[index] = decodeStream(outputs, { table: target.tokenTable, request, promptTokens: prompt.promptTokens, index });
    }
  }
  return mergeAsync(streams);
}

/**
 * The frontend fans n choices out as n single-choice engine requests. They must differ, so each
 * gets its own seed, offset from the request's when it has one.
 */
function withChoiceSeed(request: PreprocessedRequest, choice: number): PreprocessedRequest {
  const seed = request.sampling_options.seed ?? 0;
  return { ...request, sampling_options: { ...request.sampling_options, n: 1, seed: seed + choice } };
}

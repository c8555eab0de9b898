// One request inside the mocker: its tokens, KV progress, blocks held, stop rules and output channel.
import type { CompletionUsage, LLMEngineOutput, PrefillResult, PreprocessedRequest } from '../../protocols/index.js';
import { ValidationError } from '../../protocols/index.js';
import { computeLocalBlockHashes, computeSaltSeed, chainSequenceHash, XXH3_SEED } from '../../protocols/index.js';
import { AsyncQueue } from '../../runtime/async-queue/index.js';
import type { BlockId } from './kv-manager.js';
import type { MockerOptions } from './options.js';
import { LogprobSampler } from './logprobs.js';
import { ScriptedStream } from './scripted-stream.js';
import { GreedyTokens, SplitMix32, promptSeedHash, type OutputTokens } from './token-stream.js';
import type { MockVocabulary } from './vocabulary.js';

export interface StopRules {
  maxTokens: number;
  minTokens: number;
  /** Generated-token count at which the natural EOS is emitted; Infinity when it never is. */
  naturalLength: number;
  eosId: number | null;
  eosIds: ReadonlySet<number>;
  stopIds: ReadonlySet<number>;
  ignoreEos: boolean;
}

/** The most generated tokens a sequence's token array has room for from the start. */
const ANSWER_ROOM = 64;

/**
 * A copy of `prompt` with storage for `room` more tokens: a copied array grown by its first push
 * would be made again with room for half as many more plus 16 (for a short answer, more than the
 * copy itself). Shortening an array keeps its storage when most of it stays in use.
 */
function withRoom(prompt: readonly number[], room: number): number[] {
  const tokens = new Array<number>(prompt.length + room);
  for (let i = 0; i < prompt.length; i++) tokens[i] = prompt[i]!;
  tokens.length = prompt.length;
  return tokens;
}

/** A prefill engine's hand-over, built on the request's one output. */
export type Handover = (seq: Sequence) => unknown;

export class Sequence {
  /** Prompt followed by every generated token. */
  readonly tokens: number[];
  readonly promptLength: number;
  /** Tokens whose KV is computed; the rest still need a forward pass. */
  numComputed = 0;
  readonly localHashes: bigint[] = [];
  readonly seqHashes: bigint[] = [];
  /** Blocks held, in sequence order; the last one is private and partial when hasPartial. */
  blocks: BlockId[] = [];
  hasPartial = false;
  admitted = false;
  /** Prefix-cache hit at first admission, reported as cached_tokens. */
  cachedTokens = 0;
  /**
   * Prompt tokens whose KV a prefill worker handed over: computed without prefill time at first
   * admission (a preempted request recomputes them, the hand-over being gone).
   */
  transferredTokens = 0;
  /** Admitted with a handed-over prompt: its first step is a decode step. */
  remotePrefilled = false;
  /** The prefill worker's cache report, which the usage repeats for a handed-over prompt. */
  reportedCachedTokens: number | null = null;
  finished = false;
  /** Filled by the scheduler loop, drained by the request's generate() iterator. */
  readonly channel = new AsyncQueue<LLMEngineOutput>();
  /** The plain token output sent last, refilled while the channel's consumer reads in place. */
  private sent: (LLMEngineOutput & { token_ids: number[] }) | null = null;

  constructor(
    readonly requestId: string,
    prompt: readonly number[],
    private readonly saltSeed: bigint,
    private readonly stream: OutputTokens,
    private readonly rules: StopRules,
    /** Set when the request asked for logprobs. */
    private readonly logprobs: LogprobSampler | null = null,
    /** Set on a prefill engine: the transfer parameters its final output carries. */
    private readonly handover: Handover | null = null,
  ) {
    this.tokens = withRoom(prompt, Math.min(rules.maxTokens, ANSWER_ROOM));
    this.promptLength = prompt.length;
  }

  /** The answer's token budget (max_tokens, or the engine's default). */
  get maxTokens(): number {
    return this.rules.maxTokens;
  }

  get generatedCount(): number {
    return this.tokens.length - this.promptLength;
  }

  /** Makes sure at least the first `numBlocks` full blocks are hashed (hashes every full block so far). */
  ensureHashes(numBlocks: number, blockSize: number): void {
    if (numBlocks <= this.localHashes.length) return;
    for (const local of computeLocalBlockHashes(this.tokens, blockSize, this.saltSeed, this.localHashes.length)) {
      const prev = this.seqHashes[this.seqHashes.length - 1];
      this.localHashes.push(local);
      this.seqHashes.push(prev === undefined ? local : chainSequenceHash(prev, local));
    }
  }

  /**
   * Samples the next token, appends it, and builds its output (final fields included when it ends).
   * While the channel's consumer reads outputs in place, a plain token's output is the one this
   * sequence sent last, refilled.
   */
  sampleNext(): LLMEngineOutput {
    const r = this.rules;
    const g = this.generatedCount + 1;
    const token =
      g >= r.naturalLength && !this.stream.midUnit ? r.eosId! : this.stream.nextToken(r.maxTokens - g + 1);
    this.tokens.push(token);
    this.stream.push(token);
    const mayStop = g > r.minTokens;
    let finish: LLMEngineOutput['finish_reason'] = null;
    if (mayStop && r.stopIds.has(token)) finish = 'stop';
    else if (mayStop && !r.ignoreEos && r.eosIds.has(token)) finish = 'eos';
    else if (g >= r.maxTokens) finish = 'length';
    if (finish === null && this.logprobs === null) return this.plainOutput(token);
    const out: LLMEngineOutput = { token_ids: [token], index: 0 };
    if (this.logprobs) {
      const lp = this.logprobs.next(token);
      out.log_probs = [lp.logprob];
      if (lp.top) out.top_logprobs = [lp.top];
    }
    if (finish !== null) {
      out.finish_reason = finish;
      if (finish === 'stop') out.stop_reason = token;
      out.completion_usage = this.usage();
      if (this.handover) out.disaggregated_params = this.handover(this);
    }
    return out;
  }

  /** The output of a token that neither ends the sequence nor carries logprobs. */
  private plainOutput(token: number): LLMEngineOutput {
    // A consumer that keeps outputs (a stream, a remote caller) gets a new one, and none is kept here.
    if (!this.channel.refillable) return { token_ids: [token], index: 0 };
    const last = this.sent;
    if (last === null) return (this.sent = { token_ids: [token], index: 0 });
    last.token_ids[0] = token;
    return last;
  }

  /** A final output with no new token, for requests the engine has to end itself. */
  finalOutput(reason: 'length' | 'abort'): LLMEngineOutput {
    return { token_ids: [], index: 0, finish_reason: reason, completion_usage: this.usage() };
  }

  /** Forget KV progress after preemption; generated tokens stay and are recomputed with the prompt. */
  resetProgress(): void {
    this.blocks = [];
    this.hasPartial = false;
    this.numComputed = 0;
    this.remotePrefilled = false;
  }

  private usage(): CompletionUsage {
    const completion = this.generatedCount;
    return {
      prompt_tokens: this.promptLength,
      completion_tokens: completion,
      total_tokens: this.promptLength + completion,
      prompt_tokens_details: { cached_tokens: this.reportedCachedTokens ?? this.cachedTokens },
    };
  }
}

/**
 * The generated-token count at which the natural EOS comes. Counted from the prompt's last special
 * token (the chat template's assistant header) and drawn from the context up to it, so a request
 * re-sent with its generated tokens appended ends where the unbroken run would have; a prompt with
 * no special token counts from its own end.
 */
function naturalEnding(greedy: GreedyTokens, opts: MockerOptions, seed: number | null | undefined, prompt: readonly number[]): number {
  const rng = greedy.anchorRng() ?? SplitMix32.fromHash(promptSeedHash(seed, prompt));
  const length = rng.nextInRange(opts.naturalLengthMin, opts.naturalLengthMax);
  return greedy.sinceAnchor < 0 ? length : length - greedy.sinceAnchor;
}

/** The most alternatives per position the engine gives (chat allows 20, completions 5). */
const MAX_TOP_LOGPROBS = 20;

/** Shared by every request without such ids (most have no stop token ids): never written to. */
const NO_IDS: ReadonlySet<number> = new Set();

function idSet(...lists: (readonly number[] | null | undefined)[]): ReadonlySet<number> {
  let set: Set<number> | null = null;
  for (const list of lists) {
    if (!list) continue;
    for (const id of list) (set ??= new Set()).add(id);
  }
  return set ?? NO_IDS;
}

/**
 * Validates a request against the engine's limits and builds its sequence. Throws ValidationError.
 * With a `script`, the request answers with those tokens and then EOS.
 */
export function createSequence(
  request: PreprocessedRequest,
  requestId: string,
  opts: MockerOptions,
  vocab: MockVocabulary,
  script: readonly number[] | null = null,
): Sequence {
  const prompt = request.token_ids;
  if (!Array.isArray(prompt) || prompt.length === 0) throw new ValidationError('prompt must contain at least one token');
  const admissible = Math.floor((1 - opts.watermark) * opts.numGpuBlocks);
  if (Math.ceil((prompt.length + 1) / opts.blockSize) > admissible) {
    throw new ValidationError(
      `prompt of ${prompt.length} tokens exceeds the KV cache (${admissible} blocks of ${opts.blockSize} tokens)`,
    );
  }
  if (!opts.enableChunkedPrefill && prompt.length > opts.maxNumBatchedTokens) {
    throw new ValidationError(
      `prompt of ${prompt.length} tokens exceeds max_num_batched_tokens (${opts.maxNumBatchedTokens}) without chunked prefill`,
    );
  }

  const stop = request.stop_conditions ?? {};
  const prefillOnly = opts.workerType === 'prefill';
  // A prefill engine answers exactly one token, whatever the request asked (upstream forces it too).
  const minTokens = prefillOnly ? 0 : (stop.min_tokens ?? 0);
  const maxTokens = prefillOnly ? 1 : (stop.max_tokens ?? Math.max(opts.defaultMaxTokens, minTokens));
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) throw new ValidationError('max_tokens must be an integer >= 1');
  if (!Number.isSafeInteger(minTokens) || minTokens < 0 || minTokens > maxTokens) {
    throw new ValidationError('min_tokens must be an integer between 0 and max_tokens');
  }

  const ignoreEos = stop.ignore_eos === true;
  const eosIds = idSet(request.eos_token_ids, stop.stop_token_ids_hidden);
  const eosId = eosIds.size > 0 ? eosIds.values().next().value! : null;
  const seed = request.sampling_options?.seed;
  const greedy = new GreedyTokens(vocab, seed, prompt);
  const stream = script ? new ScriptedStream(script, greedy) : greedy;
  // The prompt is hashed only when its ending is drawn from it: a prompt without a special token (a
  // chat template always has one) that may end on EOS, or one asking for logprobs.
  const naturalLength =
    ignoreEos || eosId === null ? Infinity : Math.max(script ? script.length + 1 : naturalEnding(greedy, opts, seed, prompt), minTokens + 1);

  const topK = request.output_options?.logprobs;
  if (topK != null && (!Number.isSafeInteger(topK) || topK < 0 || topK > MAX_TOP_LOGPROBS)) {
    throw new ValidationError(`logprobs must be an integer between 0 and ${MAX_TOP_LOGPROBS}, got ${topK}`);
  }
  const logprobs = topK == null ? null : new LogprobSampler(vocab, promptSeedHash(seed, prompt), topK);

  const loraName = request.routing?.lora_name;
  // Without a LoRA the salt is the base seed: no options object to make per request.
  const saltSeed = loraName ? computeSaltSeed({ loraName }) : XXH3_SEED;
  const seq = new Sequence(requestId, prompt, saltSeed, stream, {
    maxTokens,
    minTokens,
    naturalLength,
    eosId,
    eosIds,
    stopIds: idSet(stop.stop_token_ids),
    ignoreEos,
  }, logprobs, prefillOnly ? kvTransferParams(opts) : null);
  if (opts.workerType !== 'prefill' && request.prefill_result) receiveHandover(seq, request.prefill_result, opts.blockSize);
  return seq;
}

/**
 * vLLM's NIXL hand-over shape (`kv_transfer_params`): the decode side pulls the prompt's blocks
 * from this engine. The block ids are the prompt's block positions, the one thing a simulated
 * transfer needs.
 */
function kvTransferParams(opts: MockerOptions): Handover {
  return (seq) => ({
    kv_transfer_params: {
      do_remote_prefill: true,
      do_remote_decode: false,
      remote_engine_id: opts.engineId,
      remote_block_ids: Array.from({ length: Math.ceil(seq.promptLength / opts.blockSize) }, (_, i) => i),
    },
  });
}

/**
 * What a decode engine takes from a hand-over: with vLLM-style `remote_block_ids`, that many
 * blocks of the prompt; with any other parameters (upstream's mocker sends a placeholder string),
 * the whole prompt.
 */
function receiveHandover(seq: Sequence, result: PrefillResult, blockSize: number): void {
  const params = (result.disaggregated_params as { kv_transfer_params?: { remote_block_ids?: unknown } } | null)?.kv_transfer_params;
  const ids = params?.remote_block_ids;
  seq.transferredTokens = Array.isArray(ids) ? Math.min(seq.promptLength, ids.length * blockSize) : seq.promptLength;
  const cached = result.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') seq.reportedCachedTokens = cached;
}

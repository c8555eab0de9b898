// The backend operator: turns one choice's engine outputs into released text with OpenAI-facing
// finish reasons, applying local stop conditions and telling the engine to stop when one fires.

import {
  endLater,
  InternalError,
  iterableOf,
  pushItems,
  type PushingIterator,
  type StreamSink,
  type CompletionUsage,
  type EngineFinishReason,
  type LLMEngineOutput,
  type ToolCallDelta,
} from '../../protocols/index.js';
import { SequenceDecoder, stopSettingsFrom, type StopRequest, type StopTrigger } from './sequence-decoder.js';
import type { TokenTable } from './token-table.js';
import { decodedTokenLogprobs, tokenLogprobs, type TokenLogprob } from './token-logprobs.js';

/** OpenAI-facing finish reasons; `cancelled` is kept distinct so the HTTP layer can decide. */
export type ChoiceFinishReason = 'stop' | 'length' | 'content_filter' | 'cancelled';

export interface DecodedStep {
  /** The choice index given in the options. */
  index: number;
  /** Newly released text; "" when the tokens' text is held back or hidden. */
  text: string;
  /** The engine's ids for this step, unchanged (ids after a local stop in the same step included). */
  token_ids: number[];
  /** Each processed token's own text (null for a hidden stop token); may be shorter than token_ids after a local stop. */
  tokens: (string | null)[];
  /** The engine's per-token log probabilities, passed through. */
  log_probs: number[] | null;
  /** When the request asked for logprobs and the engine gave them: one entry per processed token. */
  logprobs?: TokenLogprob[];
  /** Reasoning the engine split off itself (`reasoning_content`); passed on unparsed. */
  reasoning?: string;
  /** Tool-call pieces the engine parsed itself; passed on unparsed. */
  toolCalls?: ToolCallDelta[];
  finish_reason: ChoiceFinishReason | null;
  /** The engine-level reason: `eos` for a model EOS, `stop` for stop ids/strings, and so on. */
  engine_finish_reason: EngineFinishReason | null;
  stop_reason: string | number | null;
  /** On the finishing step only: the engine's completion_usage, else counted here. */
  usage?: CompletionUsage;
  /** What the engine reported of itself with this output (`engine_data`, e.g. its weight version). */
  engineData?: Record<string, unknown>;
}

export interface DecodeStreamOptions {
  table: TokenTable;
  /** The request sent to the engine: stop conditions, include_stop_str_in_output, skip_special_tokens, eos ids. */
  request: StopRequest;
  /** Prompt length, for usage when the engine does not report it. */
  promptTokens: number;
  index: number;
  /**
   * Told once when a local stop (or a decode error) ends the choice before the engine finished.
   * The engine stream is closed right after (`return()`), which is what stops the engine.
   */
  onLocalStop?: () => void;
}

/**
 * Detokenizes and applies stop handling to one choice's engine stream. The last step carries the
 * finish reason and usage; a stream that ends without a finish gets a synthetic `stop` step
 * carrying any held-back text. Engine `error` finishes and decode errors are thrown as
 * `InternalError`. Steps whose `text` the engine already decoded bypass the detokenizer and
 * stop handling, as upstream does.
 *
 * No generator: each output goes through the synchronous ChoiceDecoder as it arrives (the token
 * path is hot), one promise per output when pulled and none when pushed. After the last step the
 * engine stream is closed, as leaving a `for await` would.
 */
export function decodeStream(outputs: AsyncIterable<LLMEngineOutput>, opts: DecodeStreamOptions): AsyncIterable<DecodedStep> {
  return iterableOf(() => new DecodedSteps(outputs[Symbol.asyncIterator](), new ChoiceDecoder(opts)));
}

/**
 * One choice's decoded steps; when pushed, it is itself the sink of the engine stream (its
 * `item`, `end` and `fail`), so pushing makes no closures per choice.
 */
class DecodedSteps implements PushingIterator<DecodedStep>, StreamSink<LLMEngineOutput> {
  private done = false;
  private sink: StreamSink<DecodedStep> | null = null;
  /** The one step refilled per output, for a sink that reads steps in place (a unary fold). */
  private reused: DecodedStep | null = null;
  /** The pull handlers, made on the first pull. */
  private onOutput: ((r: IteratorResult<LLMEngineOutput>) => IteratorResult<DecodedStep> | Promise<IteratorResult<DecodedStep>>) | null = null;
  private onError: ((err: unknown) => never) | null = null;

  constructor(
    private readonly inner: AsyncIterator<LLMEngineOutput>,
    private readonly decoder: ChoiceDecoder,
  ) {}

  next(): Promise<IteratorResult<DecodedStep>> {
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    // The handlers are made on the first pull: a pushed choice never needs them.
    return this.inner.next().then((this.onOutput ??= (r) => this.pulled(r)), (this.onError ??= (err) => this.pullFailed(err)));
  }

  pushTo(sink: StreamSink<DecodedStep>): void {
    if (this.done) {
      endLater(sink);
      return;
    }
    this.sink = sink;
    if (sink.readsInPlace === true) this.reused = this.decoder.reusableStep();
    pushItems(this.inner, this);
  }

  /**
   * An output's step is read within the call and carries the output's token ids: the choice reads
   * outputs in place when its sink reads steps so (the usage it keeps is the finishing output's own).
   */
  get readsInPlace(): boolean {
    return this.sink?.readsInPlace === true;
  }

  /** An engine output, pushed: its step goes to the sink (none once the choice is over). */
  item(out: LLMEngineOutput): void {
    const sink = this.sink;
    if (sink === null) return;
    let step: DecodedStep | null;
    try {
      step = this.decoder.accept(out, this.reused);
    } catch (err) {
      this.stop();
      sink.fail(err);
      return;
    }
    if (step === null) return;
    if (step.finish_reason === null) {
      sink.item(step);
      return;
    }
    this.stop();
    sink.item(step);
    sink.end();
  }

  /** The engine stream ended without a finish: the synthetic `stop` step, then the end. */
  end(): void {
    const sink = this.sink;
    if (sink === null) return;
    this.sink = null;
    this.done = true;
    sink.item(this.decoder.ended());
    sink.end();
  }

  fail(err: unknown): void {
    const sink = this.sink;
    if (sink === null) return;
    this.sink = null;
    this.done = true;
    sink.fail(err);
  }

  return(): Promise<IteratorResult<DecodedStep>> {
    this.sink = null;
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    this.done = true;
    return (this.inner.return?.() ?? Promise.resolve()).then(() => ({ done: true, value: undefined }));
  }

  private pulled(r: IteratorResult<LLMEngineOutput>): IteratorResult<DecodedStep> | Promise<IteratorResult<DecodedStep>> {
    if (r.done) {
      this.done = true;
      return { done: false, value: this.decoder.ended() };
    }
    let step: DecodedStep | null;
    try {
      step = this.decoder.accept(r.value, null);
    } catch (err) {
      this.close();
      throw err;
    }
    if (step === null) return this.next();
    if (step.finish_reason !== null) this.close();
    return { done: false, value: step };
  }

  private pullFailed(err: unknown): never {
    this.done = true;
    throw err;
  }

  /** The pushed choice is over: the sink hears nothing more from the engine stream, which is released. */
  private stop(): void {
    this.sink = null;
    this.close();
  }

  /** The choice is over: later pulls end, and the engine stream is released. */
  private close(): void {
    this.done = true;
    this.inner.return?.().catch(ignore);
  }
}

/** One choice's engine outputs → its decoded steps, one synchronous call per output. */
class ChoiceDecoder {
  private readonly seq: SequenceDecoder;
  private readonly wantLogprobs: boolean;
  private completionTokens = 0;
  private engineUsage: CompletionUsage | null = null;
  /** The token texts refilled with a reusable step (never an engine's own array). */
  private reusedTexts: (string | null)[] | null = null;

  constructor(private readonly opts: DecodeStreamOptions) {
    this.seq = new SequenceDecoder(opts.table, stopSettingsFrom(opts.request));
    this.wantLogprobs = opts.request.output_options.logprobs != null;
  }

  /**
   * The step for `out`: null when it has nothing to tell; a finish reason when the choice is over.
   * With `into` (a reusableStep()), that object is refilled and answered, and its token texts too.
   */
  accept(out: LLMEngineOutput, into: DecodedStep | null): DecodedStep | null {
    const opts = this.opts;
    const ids = out.token_ids ?? [];
    const engineFinish = out.finish_reason ?? null;
    this.completionTokens += ids.length;
    if (out.completion_usage) this.engineUsage = out.completion_usage;
    if (engineFinish === 'error') {
      throw new InternalError(`engine error${typeof out.stop_reason === 'string' ? `: ${out.stop_reason}` : ''}`);
    }

    let text: string;
    let tokens: (string | null)[];
    let trigger: StopTrigger | null = null;
    if (out.text != null) {
      text = out.text;
      tokens = out.tokens ?? [];
    } else {
      let result;
      try {
        result = this.seq.process(ids, into === null ? null : this.reusedTexts);
      } catch (err) {
        if (engineFinish === null) opts.onLocalStop?.();
        throw err;
      }
      text = result.text;
      tokens = result.tokens;
      trigger = result.trigger;
    }
    const step: DecodedStep =
      into === null
        ? { index: opts.index, text, token_ids: ids, tokens, log_probs: out.log_probs ?? null, finish_reason: null, engine_finish_reason: null, stop_reason: null }
        : refilled(into, text, ids, tokens, out.log_probs ?? null);
    if (out.reasoning_content) step.reasoning = out.reasoning_content;
    if (out.tool_calls?.length) step.toolCalls = out.tool_calls;
    if (out.engine_data) step.engineData = out.engine_data;
    // Per token, whether its text is released now, held back or hidden (as upstream reports them);
    // tokens the engine decoded itself are named by their text.
    if (this.wantLogprobs && out.log_probs) {
      step.logprobs =
        out.text != null
          ? decodedTokenLogprobs(step.tokens, out.log_probs, out.top_logprobs ?? null)
          : tokenLogprobs(step.tokens, ids, out.log_probs, out.top_logprobs ?? null, opts.table);
    }
    if (trigger !== null) {
      if (engineFinish === null) opts.onLocalStop?.();
      setLocalFinish(step, trigger);
      step.usage = this.usage();
      return step;
    }

    if (engineFinish !== null) {
      // Held-back text is older than engine-decoded text but newer than this step's released text.
      const held = this.seq.flush();
      step.text = out.text != null ? held + step.text : step.text + held;
      step.finish_reason = choiceFinish(engineFinish);
      step.engine_finish_reason = engineFinish;
      step.stop_reason = out.stop_reason ?? null;
      step.usage = this.usage();
      return step;
    }
    return ids.length > 0 || step.text.length > 0 || step.reasoning !== undefined || step.toolCalls !== undefined ? step : null;
  }

  /** A step to refill output after output: every field present, so refilling keeps its shape. */
  reusableStep(): DecodedStep {
    this.reusedTexts = [];
    return {
      index: this.opts.index,
      text: '',
      // Placeholders: every output refills them before the step is handed over.
      token_ids: NO_IDS,
      tokens: NO_TEXTS,
      log_probs: null,
      logprobs: undefined,
      reasoning: undefined,
      toolCalls: undefined,
      finish_reason: null,
      engine_finish_reason: null,
      stop_reason: null,
      usage: undefined,
      engineData: undefined,
    };
  }

  /** The engine stream ended without a finish: a `stop` step with whatever text was held back. */
  ended(): DecodedStep {
    return {
      index: this.opts.index,
      text: this.seq.flush(),
      token_ids: [],
      tokens: [],
      log_probs: null,
      finish_reason: 'stop',
      engine_finish_reason: 'stop',
      stop_reason: null,
      usage: this.usage(),
    };
  }

  private usage(): CompletionUsage {
    const prompt = this.opts.promptTokens;
    return this.engineUsage ?? { prompt_tokens: prompt, completion_tokens: this.completionTokens, total_tokens: prompt + this.completionTokens };
  }
}

/** What a closed engine stream's return() may reject with: nothing is waiting for it. */
const ignore = (): void => undefined;

const NO_IDS: number[] = [];
const NO_TEXTS: (string | null)[] = [];

/** `step` (a reusableStep()) holding a new output's fields, the optional ones cleared. */
function refilled(step: DecodedStep, text: string, ids: number[], tokens: (string | null)[], logProbs: number[] | null): DecodedStep {
  step.text = text;
  step.token_ids = ids;
  step.tokens = tokens;
  step.log_probs = logProbs;
  step.finish_reason = step.engine_finish_reason = step.stop_reason = null;
  step.logprobs = step.reasoning = step.toolCalls = step.usage = step.engineData = undefined;
  return step;
}

function setLocalFinish(step: DecodedStep, trigger: StopTrigger): void {
  switch (trigger.kind) {
    case 'max_tokens':
      step.finish_reason = 'length';
      step.engine_finish_reason = 'length';
      return;
    case 'eos':
      step.finish_reason = 'stop';
      step.engine_finish_reason = 'eos';
      return;
    case 'stop_token':
      step.finish_reason = 'stop';
      step.engine_finish_reason = 'stop';
      step.stop_reason = trigger.tokenId;
      return;
    case 'stop_string':
      step.finish_reason = 'stop';
      step.engine_finish_reason = 'stop';
      step.stop_reason = trigger.stop;
  }
}

/** Engine finish → OpenAI-facing finish. `error` never gets here (it is thrown). */
export function choiceFinish(reason: EngineFinishReason): ChoiceFinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'cancelled':
    case 'abort':
      return 'cancelled';
    default:
      return 'stop';
  }
}

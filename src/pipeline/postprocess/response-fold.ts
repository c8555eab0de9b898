// The folding stage over one request's merged, decoded steps (every choice of every prompt): usage
// counting, the wire finish reason, the rule that a step with nothing to show sends nothing, and
// the per-choice state a unary answer is folded into. Frontends only map its output to their wire
// shapes. It is synchronous per step: the frontend's loop over the steps is the only async hop.

import type { CompletionUsage } from '../../protocols/index.js';
import type { RequestLifecycle } from '../request-lifecycle.js';
import type { ChoiceFinishReason, DecodedStep } from './decode-stream.js';
import type { ReasoningParser } from './parsers/reasoning-parser.js';
import type { ChoiceReasoning } from './parsers/reasoning-selection.js';
import type { TokenLogprob } from './token-logprobs.js';

/** The finish reasons clients see: an engine-side `cancelled` reads as `stop`. */
export type WireFinishReason = Exclude<ChoiceFinishReason, 'cancelled'>;

/** What one step of one choice has to send. */
export interface ChoiceDelta {
  index: number;
  /** Newly released answer text; "" on a step that released only reasoning, or only a finish. */
  text: string;
  /** Newly released reasoning text (only with a reasoning parser; "" otherwise). */
  reasoning: string;
  /** The engine tokens of this step. */
  tokens: number;
  /** The first delta sent for this choice. */
  first: boolean;
  finishReason: WireFinishReason | null;
  stopReason: string | number | null;
  /**
   * With `logprobs` on: the entries of the tokens this delta releases, including those of earlier
   * steps whose text the stop jail held back (so entries travel with their text). Absent when none.
   */
  logprobs?: TokenLogprob[];
}

/** One choice of a unary answer. */
export interface FoldedChoice {
  index: number;
  /** The whole answer text (empty unless the fold collects text). */
  text: string;
  /** The whole reasoning text, split off by the model's reasoning parser (empty unless collected). */
  reasoning: string;
  finishReason: WireFinishReason | null;
  stopReason: string | number | null;
  /** The engine's completion_tokens when it reported them, else the tokens counted. */
  outputTokens: number;
  /** With `logprobs` and `collectText` on: every token's entry, in order. */
  logprobs?: TokenLogprob[];
}

export interface ResponseFoldOptions {
  /** Prompt tokens over every prompt of the request. */
  promptTokens: number;
  /** Keep each choice's text, for a unary answer; streams leave it off. */
  collectText: boolean;
  /** Told the token count of every step; its end event carries this fold's usage. */
  request?: RequestLifecycle;
  /** The request asked for logprobs: pass the steps' entries on (off: no per-token work). */
  logprobs?: boolean;
  /** Text a choice starts with, before anything generated (completions `echo`), by choice index. */
  prefix?: (index: number) => string;
  /** The model's reasoning parser, one per choice; absent: the text passes untouched. */
  reasoning?: ChoiceReasoning;
}

const WIRE_FINISH: Readonly<Record<ChoiceFinishReason, WireFinishReason>> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
  cancelled: 'stop',
};

interface ChoiceState extends FoldedChoice {
  /** A delta of this choice went out. */
  sent: boolean;
  /** Entries of steps that sent nothing, waiting for the next delta. */
  pending?: TokenLogprob[];
  /** Characters of the choice's token texts so far (the prefix included): the next text offset. */
  offset: number;
  /** This choice's reasoning parser, when the model has one. */
  parser?: ReasoningParser;
}

export function wireFinishReason(reason: ChoiceFinishReason | null): WireFinishReason | null {
  return reason === null ? null : WIRE_FINISH[reason];
}

/**
 * Folds the steps of one request. `step()` returns the delta a stream sends for it, or null when
 * the step has no text and no finish (text the stop-string jail still holds); `usage()` and
 * `choices()` give the totals once the steps are done. Each choice's text goes through the
 * model's reasoning parser first (its finishing step flushes it), then (soon) the tool-call parser;
 * the skip rule counts both texts.
 */
export class ResponseFold {
  /** By choice index (dense: prompt * n + choice). */
  private readonly states: ChoiceState[] = [];
  private cachedTokens: number | undefined;

  constructor(private readonly opts: ResponseFoldOptions) {
    opts.request?.usageFrom(this);
  }

  step(step: DecodedStep): ChoiceDelta | null {
    const tokens = step.token_ids.length;
    this.opts.request?.tokens(tokens);
    const state = this.states[step.index] ?? this.newState(step.index);
    this.countUsage(state, step);
    const finishReason = wireFinishReason(step.finish_reason);
    const first = !state.sent;
    let released = step.text;
    let reasoning = '';
    if (state.parser) {
      const split = state.parser.push(released);
      if (finishReason !== null) {
        const rest = state.parser.finish();
        split.reasoning += rest.reasoning;
        split.content += rest.content;
      }
      released = split.content;
      reasoning = split.reasoning;
    }
    // The tool-call parser goes here: it takes the answer text the reasoning parser left.
    const text = first && this.opts.prefix ? this.opts.prefix(step.index) + released : released;
    if (this.opts.collectText) {
      state.text += released;
      state.reasoning += reasoning;
    }
    if (finishReason !== null) {
      state.finishReason = finishReason;
      state.stopReason = step.stop_reason;
    }
    const logprobs = this.opts.logprobs && step.logprobs ? this.placeLogprobs(state, step.logprobs) : undefined;
    if (released.length === 0 && reasoning.length === 0 && finishReason === null) {
      if (logprobs) state.pending = logprobs;
      return null;
    }
    state.sent = true;
    const delta: ChoiceDelta = { index: step.index, text, reasoning, tokens, first, finishReason, stopReason: step.stop_reason };
    const entries = logprobs ?? state.pending;
    state.pending = undefined;
    if (entries && entries.length > 0) delta.logprobs = entries;
    return delta;
  }

  /** Usage over every prompt and choice: completion tokens summed, cached prompt tokens the largest reported. */
  usage(): CompletionUsage {
    let completion = 0;
    for (const state of this.states) if (state) completion += state.outputTokens;
    const { promptTokens } = this.opts;
    const usage: CompletionUsage = { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
    if (this.cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: this.cachedTokens };
    return usage;
  }

  /** The choices seen, by index. */
  choices(): FoldedChoice[] {
    return this.states
      .filter((s) => s !== undefined)
      .map(({ sent: _sent, pending: _pending, offset: _offset, parser: _parser, ...choice }) => choice);
  }

  private newState(index: number): ChoiceState {
    const prefix = this.opts.prefix?.(index) ?? '';
    const state: ChoiceState = {
      index,
      text: this.opts.collectText ? prefix : '',
      reasoning: '',
      finishReason: null,
      stopReason: null,
      outputTokens: 0,
      sent: false,
      offset: this.opts.logprobs ? codePoints(prefix) : 0,
    };
    if (this.opts.logprobs && this.opts.collectText) state.logprobs = [];
    if (this.opts.reasoning) state.parser = this.opts.reasoning();
    this.states[index] = state;
    return state;
  }

  /** Sets the entries' text offsets and collects them; returns them joined to any still pending. */
  private placeLogprobs(state: ChoiceState, entries: TokenLogprob[]): TokenLogprob[] {
    for (const entry of entries) {
      entry.textOffset = state.offset;
      state.offset += codePoints(entry.token);
    }
    state.logprobs?.push(...entries);
    return state.pending ? [...state.pending, ...entries] : entries;
  }

  private countUsage(state: ChoiceState, step: DecodedStep): void {
    if (!step.usage) {
      state.outputTokens += step.token_ids.length;
      return;
    }
    state.outputTokens = step.usage.completion_tokens;
    const cached = step.usage.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined && cached !== null) this.cachedTokens = Math.max(this.cachedTokens ?? 0, cached);
  }
}

/** Length in Unicode code points, as OpenAI's `text_offset` counts characters. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const prev = text.charCodeAt(i - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) n--;
    }
  }
  return n;
}

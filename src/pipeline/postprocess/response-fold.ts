// The folding stage over one request's merged, decoded steps (every choice of every prompt): usage
// counting, the wire finish reason, the rule that a step with nothing to show sends nothing, and
// the per-choice state a unary answer is folded into. Frontends only map its output to their wire
// shapes. It is synchronous per step: the frontend's loop over the steps is the only async hop.

import type { CompletionUsage } from '../../protocols/index.js';
import type { RequestLifecycle } from '../request-lifecycle.js';
import type { ChoiceFinishReason, DecodedStep } from './decode-stream.js';

/** The finish reasons clients see: an engine-side `cancelled` reads as `stop`. */
export type WireFinishReason = Exclude<ChoiceFinishReason, 'cancelled'>;

/** What one step of one choice has to send. */
export interface ChoiceDelta {
  index: number;
  /** Newly released text; "" only on a finishing step. */
  text: string;
  /** The engine tokens of this step. */
  tokens: number;
  /** The first delta sent for this choice. */
  first: boolean;
  finishReason: WireFinishReason | null;
  stopReason: string | number | null;
}

/** One choice of a unary answer. */
export interface FoldedChoice {
  index: number;
  /** The whole text (empty unless the fold collects text). */
  text: string;
  finishReason: WireFinishReason | null;
  stopReason: string | number | null;
  /** The engine's completion_tokens when it reported them, else the tokens counted. */
  outputTokens: number;
}

export interface ResponseFoldOptions {
  /** Prompt tokens over every prompt of the request. */
  promptTokens: number;
  /** Keep each choice's text, for a unary answer; streams leave it off. */
  collectText: boolean;
  /** Told the token count of every step; its end event carries this fold's usage. */
  request?: RequestLifecycle;
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
}

export function wireFinishReason(reason: ChoiceFinishReason | null): WireFinishReason | null {
  return reason === null ? null : WIRE_FINISH[reason];
}

/**
 * Folds the steps of one request. `step()` returns the delta a stream sends for it, or null when
 * the step has no text and no finish (text the stop-string jail still holds); `usage()` and
 * `choices()` give the totals once the steps are done. Reasoning and tool-call parsers belong
 * between the finish mapping and the skip rule of `step()`, keeping their state per choice.
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
    let state = this.states[step.index];
    if (state === undefined) {
      state = { index: step.index, text: '', finishReason: null, stopReason: null, outputTokens: 0, sent: false };
      this.states[step.index] = state;
    }
    this.countUsage(state, step);
    const finishReason = wireFinishReason(step.finish_reason);
    if (this.opts.collectText) state.text += step.text;
    if (finishReason !== null) {
      state.finishReason = finishReason;
      state.stopReason = step.stop_reason;
    }
    if (step.text.length === 0 && finishReason === null) return null;
    const first = !state.sent;
    state.sent = true;
    return { index: step.index, text: step.text, tokens, first, finishReason, stopReason: step.stop_reason };
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
    return this.states.filter((s) => s !== undefined).map(({ sent: _sent, ...choice }) => choice);
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

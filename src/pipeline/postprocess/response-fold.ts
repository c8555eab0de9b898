// The folding stage over one request's merged, decoded steps (every choice of every prompt): usage
// counting, the wire finish reason, the rule that a step with nothing to show sends nothing, and
// the per-choice state a unary answer is folded into. Frontends only map its output to their wire
// shapes. It is synchronous per step: the frontend's loop over the steps is the only async hop.

import type { CompletionUsage, ToolCallDelta } from '../../protocols/index.js';
import type { RequestLifecycle } from '../request-lifecycle.js';
import type { ChoiceFinishReason, DecodedStep } from './decode-stream.js';
import type { ChoiceReasoning, ReasoningParser } from './parsers/reasoning/index.js';
import { EngineToolCalls, type ChoiceToolCalls, type ToolCallParser, type ToolParseItem } from './parsers/tool/index.js';
import type { TokenLogprob } from './token-logprobs.js';

export type { ToolCallDelta };

/**
 * The finish reasons clients see: an engine-side `cancelled` reads as `stop`, and a choice that
 * made a tool call and stopped reads `tool_calls`.
 */
export type WireFinishReason = Exclude<ChoiceFinishReason, 'cancelled'> | 'tool_calls';

/** One whole tool call of a unary answer. */
export interface FoldedToolCall {
  id: string;
  name: string;
  /** The arguments JSON as generated (not checked against the tool's schema). */
  arguments: string;
}

/** What one step of one choice has to send. */
export interface ChoiceDelta {
  index: number;
  /** Newly released answer text; "" on a step that released only reasoning, or only a finish. */
  text: string;
  /** Newly released reasoning text (only with a reasoning parser; "" otherwise). */
  reasoning: string;
  /**
   * The engine tokens of this step and of the choice's earlier steps that sent nothing (text the
   * stop jail held, tokens with no text): a stream's deltas sum to the tokens generated.
   */
  tokens: number;
  /** The first delta sent for this choice. */
  first: boolean;
  finishReason: WireFinishReason | null;
  stopReason: string | number | null;
  /** Pieces of tool calls this step released (only with a tool-call parser); absent when none. */
  toolCalls?: ToolCallDelta[];
  /** Indices of the calls this step completed (every piece of them has been given); absent when none. */
  toolCallsEnded?: number[];
  /**
   * With `logprobs` on: the entries of the tokens this delta releases, including those of earlier
   * steps whose text the stop jail held back (so entries travel with their text). Absent when none.
   */
  logprobs?: TokenLogprob[];
  /** With `tokenIds` on: the engine ids behind `tokens` (this step's and those of the steps that sent nothing). */
  tokenIds?: number[];
}

/** What one step's parse items gave besides content. */
interface ToolStepCalls {
  pieces: ToolCallDelta[];
  ended: number[];
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
  /** With `collectText` on: the calls the tool-call parser found, in order; absent when none. */
  toolCalls?: FoldedToolCall[];
  /** With `tokenIds` and `collectText` on: every id the engine generated, in order. */
  tokenIds?: number[];
  /** With `collectText` on: what the engine reported of itself (`engine_data`), the latest value of each key. */
  engineData?: Record<string, unknown>;
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
  /** The tool-call parser, one per choice, run on the text reasoning left; absent: no calls parsed. */
  toolCalls?: ChoiceToolCalls;
  /** Pass the engine's token ids on (deltas' and choices' `tokenIds`). */
  tokenIds?: boolean;
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
  /** With `tokenIds` on: ids of steps that sent nothing, waiting for the next delta. */
  pendingIds?: number[];
  /** Tokens of steps that sent nothing, counted into the next delta. */
  unsentTokens: number;
  /** Characters of the choice's token texts so far (the prefix included): the next text offset. */
  offset: number;
  /** This choice's reasoning parser, when the model has one. */
  parser?: ReasoningParser;
  /** This choice's tool-call parser, when the request gets one. */
  toolParser?: ToolCallParser;
  /** Calls started so far: a stop then reads `tool_calls`. */
  calls: number;
  /** The calls the engine parsed itself, once it sent one. */
  engineCalls?: EngineToolCalls;
}

export function wireFinishReason(reason: ChoiceFinishReason | null): WireFinishReason | null {
  return reason === null ? null : WIRE_FINISH[reason];
}

/**
 * Folds the steps of one request. `step()` returns the delta a stream sends for it, or null when
 * the step has no text and no finish (text the stop-string jail still holds); `usage()` and
 * `choices()` give the totals once the steps are done. Each choice's text goes through the
 * model's reasoning parser first (its finishing step flushes it), then the tool-call parser on the
 * answer text that leaves; reasoning and tool calls the engine parsed itself join them unparsed.
 * The skip rule counts reasoning, text and tool-call pieces.
 */
export class ResponseFold {
  /** By choice index (dense: prompt * n + choice). */
  private readonly states: ChoiceState[] = [];
  private cachedTokens: number | undefined;

  constructor(private readonly opts: ResponseFoldOptions) {
    opts.request?.usageFrom(this);
  }

  step(step: DecodedStep): ChoiceDelta | null {
    return this.fold(step, true);
  }

  /** Folds a step whose delta nobody sends (a unary answer): as `step()`, without making the delta. */
  absorb(step: DecodedStep): void {
    this.fold(step, false);
  }

  private fold(step: DecodedStep, wantDelta: boolean): ChoiceDelta | null {
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
    // What the engine split off itself passes on as it is: never through the parsers again.
    if (step.reasoning) reasoning = step.reasoning + reasoning;
    let items: ToolParseItem[] | undefined;
    if (state.toolParser) {
      items = state.toolParser.push(released);
      if (finishReason !== null) items.push(...state.toolParser.finish());
      released = '';
    }
    if (step.toolCalls || (finishReason !== null && state.engineCalls)) {
      const own = (state.engineCalls ??= new EngineToolCalls()).push(step.toolCalls ?? [], finishReason !== null);
      items = items ? items.concat(own) : own;
    }
    const calls = items ? this.applyToolItems(state, items, (content) => (released += content)) : undefined;
    if (this.opts.collectText) {
      state.text += released;
      state.reasoning += reasoning;
      if (step.engineData) state.engineData = { ...state.engineData, ...step.engineData };
    }
    const wireReason = finishReason === 'stop' && state.calls > 0 ? 'tool_calls' : finishReason;
    if (wireReason !== null) {
      state.finishReason = wireReason;
      state.stopReason = step.stop_reason;
    }
    const logprobs = this.opts.logprobs && step.logprobs ? this.placeLogprobs(state, step.logprobs) : undefined;
    const ids = this.opts.tokenIds ? this.collectIds(state, step) : undefined;
    if (released.length === 0 && reasoning.length === 0 && calls === undefined && finishReason === null) {
      if (logprobs) state.pending = logprobs;
      // Kept past this step: a copy of the step's own ids (a step read in place may be refilled).
      if (ids) state.pendingIds = ids === step.token_ids ? ids.slice() : ids;
      state.unsentTokens += tokens;
      return null;
    }
    state.sent = true;
    if (!wantDelta) {
      state.unsentTokens = 0;
      state.pending = undefined;
      if (ids) state.pendingIds = undefined;
      return null;
    }
    const text = first && this.opts.prefix ? this.opts.prefix(step.index) + released : released;
    const delta: ChoiceDelta = { index: step.index, text, reasoning, tokens: tokens + state.unsentTokens, first, finishReason: wireReason, stopReason: step.stop_reason };
    state.unsentTokens = 0;
    if (calls?.pieces.length) delta.toolCalls = calls.pieces;
    if (calls?.ended.length) delta.toolCallsEnded = calls.ended;
    const entries = logprobs ?? state.pending;
    state.pending = undefined;
    if (entries && entries.length > 0) delta.logprobs = entries;
    if (ids) {
      delta.tokenIds = ids;
      state.pendingIds = undefined;
    }
    return delta;
  }

  /** The ids a delta of this step carries (the step's, after those still pending); collects them for a unary answer. */
  private collectIds(state: ChoiceState, step: DecodedStep): number[] {
    if (this.opts.collectText) (state.tokenIds ??= []).push(...step.token_ids);
    return state.pendingIds ? [...state.pendingIds, ...step.token_ids] : step.token_ids;
  }

  /** Usage over every prompt and choice: completion tokens summed, cached prompt tokens the largest reported. */
  usage(): CompletionUsage {
    let completion = 0;
    const states = this.states;
    for (let i = 0; i < states.length; i++) completion += states[i]?.outputTokens ?? 0;
    const { promptTokens } = this.opts;
    const usage: CompletionUsage = { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
    if (this.cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: this.cachedTokens };
    return usage;
  }

  /** The choices seen, by index. */
  choices(): FoldedChoice[] {
    const choices: FoldedChoice[] = [];
    for (const state of this.states) if (state !== undefined) choices.push(foldedChoice(state));
    return choices;
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
      unsentTokens: 0,
      calls: 0,
      offset: this.opts.logprobs ? codePoints(prefix) : 0,
    };
    if (this.opts.logprobs && this.opts.collectText) state.logprobs = [];
    if (this.opts.reasoning) state.parser = this.opts.reasoning();
    if (this.opts.toolCalls) state.toolParser = this.opts.toolCalls();
    this.states[index] = state;
    return state;
  }

  /**
   * Turns one step's parse items into content (given to `content`), call pieces and ended calls: a
   * call's start and the fragments right after it make one piece. Collects whole calls for a unary answer.
   */
  private applyToolItems(state: ChoiceState, items: readonly ToolParseItem[], content: (text: string) => void): ToolStepCalls | undefined {
    const pieces: ToolCallDelta[] = [];
    const ended: number[] = [];
    for (const item of items) {
      if (item.type === 'content') content(item.text);
      else if (item.type === 'call_start') {
        state.calls += 1;
        pieces.push({ index: item.index, id: item.id, name: item.name, arguments: '' });
        if (this.opts.collectText) (state.toolCalls ??= []).push({ id: item.id, name: item.name, arguments: '' });
      } else if (item.type === 'call_arguments') {
        const last = pieces[pieces.length - 1];
        if (last?.index === item.index) last.arguments += item.fragment;
        else pieces.push({ index: item.index, arguments: item.fragment });
        const call = state.toolCalls?.[item.index];
        if (call) call.arguments += item.fragment;
      } else ended.push(item.index);
    }
    return pieces.length > 0 || ended.length > 0 ? { pieces, ended } : undefined;
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

/** A choice's state as its answer: the fields of FoldedChoice, the optional ones only when set. */
function foldedChoice(state: ChoiceState): FoldedChoice {
  const choice: FoldedChoice = {
    index: state.index,
    text: state.text,
    reasoning: state.reasoning,
    finishReason: state.finishReason,
    stopReason: state.stopReason,
    outputTokens: state.outputTokens,
  };
  if ('logprobs' in state) choice.logprobs = state.logprobs;
  if ('toolCalls' in state) choice.toolCalls = state.toolCalls;
  if ('tokenIds' in state) choice.tokenIds = state.tokenIds;
  if ('engineData' in state) choice.engineData = state.engineData;
  return choice;
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

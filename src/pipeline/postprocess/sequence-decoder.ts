// One choice's token-level stop logic, in the order the upstream backend operator applies it:
// the min_tokens gate, visible stop ids, hidden stop ids (user ids, then EOS), stop strings, and
// finally the max_tokens limit.

import type { PreprocessedRequest } from '../../protocols/index.js';
import { IncrementalDecoder } from './incremental-decoder.js';
import { StopJail } from './stop-jail.js';
import type { TokenTable } from './token-table.js';

export interface StopSettings {
  maxTokens: number | null;
  minTokens: number;
  stopStrings: readonly string[];
  includeStopStrInOutput: boolean;
  /** Stop ids whose own text is kept (stop_reason = the id). */
  visibleStopIds: ReadonlySet<number>;
  /** The user's stop_token_ids: hidden, stop_reason = the id. */
  userStopIds: ReadonlySet<number>;
  /** Model EOS ids: hidden, stop_reason null. */
  eosIds: ReadonlySet<number>;
  skipSpecialTokens: boolean;
}

export type StopRequest = Pick<PreprocessedRequest, 'stop_conditions' | 'sampling_options' | 'output_options' | 'eos_token_ids'>;

/**
 * Reads the request's stop settings. EOS ids are `stop_token_ids_hidden` plus the request's
 * `eos_token_ids` unless `ignore_eos`. `skip_special_tokens` defaults to true (newest upstream).
 */
export function stopSettingsFrom(request: StopRequest): StopSettings {
  const sc = request.stop_conditions;
  const eos = idSet(sc.stop_token_ids_hidden);
  const eosIds = sc.ignore_eos || !request.eos_token_ids?.length ? eos : new Set([...eos, ...request.eos_token_ids]);
  return {
    maxTokens: sc.max_tokens ?? null,
    minTokens: sc.min_tokens ?? 0,
    stopStrings: sc.stop ?? [],
    includeStopStrInOutput: request.sampling_options.include_stop_str_in_output ?? false,
    visibleStopIds: idSet(sc.stop_token_ids_visible),
    userStopIds: idSet(sc.stop_token_ids),
    eosIds,
    skipSpecialTokens: request.output_options.skip_special_tokens ?? true,
  };
}

/** Most requests set no stop ids of a kind: they share one empty set (never written to). */
const NO_IDS: ReadonlySet<number> = new Set();

function idSet(ids: readonly number[] | null | undefined): ReadonlySet<number> {
  return ids?.length ? new Set(ids) : NO_IDS;
}

/** The ids of the three sets; one of them when the others are empty (no copy, no list of them). */
function unionOf(a: ReadonlySet<number>, b: ReadonlySet<number>, c: ReadonlySet<number>): ReadonlySet<number> {
  const filled = (a.size > 0 ? 1 : 0) + (b.size > 0 ? 1 : 0) + (c.size > 0 ? 1 : 0);
  if (filled === 0) return NO_IDS;
  if (filled === 1) return a.size > 0 ? a : b.size > 0 ? b : c;
  const all = new Set<number>(a);
  for (const id of b) all.add(id);
  for (const id of c) all.add(id);
  return all;
}

export type StopTrigger =
  | { kind: 'max_tokens' }
  /** A model EOS id: hidden, no stop_reason. */
  | { kind: 'eos'; tokenId: number }
  /** A user or visible stop id. */
  | { kind: 'stop_token'; tokenId: number; visible: boolean }
  | { kind: 'stop_string'; stop: string; visible: boolean };

export interface SequenceResult {
  /** Text released by these tokens (held-back text from earlier tokens may come out here). */
  text: string;
  /** Each processed token's own decoded text; null for a hidden stop token. */
  tokens: (string | null)[];
  /** Set when a local stop fired; the ids after the stopping one were not processed. */
  trigger: StopTrigger | null;
}

export class SequenceDecoder {
  private readonly decoder: IncrementalDecoder;
  private readonly jail: StopJail;
  /** Every stop id, visible or hidden: most tokens are none, and one lookup tells. */
  private readonly stopIds: ReadonlySet<number>;
  private generated = 0;
  /** process()'s answer, one object per decoder: read it before the next call. */
  private readonly result: SequenceResult = { text: '', tokens: [], trigger: null };

  constructor(
    table: TokenTable,
    private readonly settings: StopSettings,
  ) {
    this.decoder = new IncrementalDecoder(table, settings.skipSpecialTokens);
    this.jail = new StopJail(settings.stopStrings, settings.includeStopStrInOutput);
    this.stopIds = unionOf(settings.visibleStopIds, settings.userStopIds, settings.eosIds);
  }

  /**
   * Processes one engine step's ids, stopping at the first stop condition. The result is reused
   * by the next call; so is `into`, when given, as the result's token texts.
   * @throws InternalError on a decode error (an id outside the vocabulary).
   */
  process(ids: readonly number[], into: (string | null)[] | null = null): SequenceResult {
    const s = this.settings;
    let text = '';
    // Sized up front: a step is usually one id, and an empty array grows to room for 17.
    let tokens: (string | null)[];
    if (into === null) tokens = new Array<string | null>(ids.length);
    else {
      tokens = into;
      // Setting an array's length is a runtime call even when it is unchanged (one id per step).
      if (tokens.length !== ids.length) tokens.length = ids.length;
    }
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      this.generated++;
      const gated = this.generated < s.minTokens;
      const stopping = !gated && this.stopIds.has(id);
      if (stopping && !s.visibleStopIds.has(id)) {
        tokens[k] = null;
        tokens.length = k + 1;
        text += this.flush();
        const trigger: StopTrigger = s.userStopIds.has(id)
          ? { kind: 'stop_token', tokenId: id, visible: false }
          : { kind: 'eos', tokenId: id };
        return this.answer(text, tokens, trigger);
      }
      const piece = this.decoder.push(id);
      tokens[k] = piece;
      let trigger: StopTrigger | null = null;
      if (gated) {
        text += piece;
      } else if (stopping) {
        // A stop id that is not hidden is a visible one.
        text += this.jail.flush() + piece;
        trigger = { kind: 'stop_token', tokenId: id, visible: true };
      } else if (this.jail.active) {
        text += this.jail.push(piece);
        const stop = this.jail.matched;
        if (stop !== null) trigger = { kind: 'stop_string', stop, visible: s.includeStopStrInOutput };
      } else {
        text += piece;
      }
      if (trigger === null && s.maxTokens !== null && this.generated >= s.maxTokens) {
        text += this.flush();
        trigger = { kind: 'max_tokens' };
      }
      if (trigger !== null) {
        tokens.length = k + 1;
        return this.answer(text, tokens, trigger);
      }
    }
    return this.answer(text, tokens, null);
  }

  private answer(text: string, tokens: (string | null)[], trigger: StopTrigger | null): SequenceResult {
    const result = this.result;
    result.text = text;
    result.tokens = tokens;
    result.trigger = trigger;
    return result;
  }

  /** Ends the sequence: jailed text, then any unfinished character as U+FFFD. */
  flush(): string {
    return this.jail.flush() + this.decoder.flush();
  }
}

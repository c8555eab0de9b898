// The numeric and stop fields of chat and completions: sampling, lengths, choices, logprobs, logit
// bias, stop (reference/http.md §5.1, §5.4). Each field's range rules live here, in upstream's words.

import { deserializeError, describeValue, isObject, isUint, present } from '../json-types.js';
import { fail } from '../validation-failure.js';
import type { Body } from './root.js';

const MAX_N = 128;
const MAX_TOTAL_CHOICES = 128;
export const MAX_STOP_SEQUENCES = 32;

/** A check of a numeric field's range, made once: a check made per call would allocate its two closures per request. */
function rangeCheck(ok: (v: number) => boolean, message: (v: number) => string): (value: unknown) => void {
  return (value) => {
    if (typeof value === 'number' && !ok(value)) fail(message(value));
  };
}

export const checkTemperature = rangeCheck((v) => v >= 0 && v <= 2, (v) => `Temperature must be between 0 and 2, got ${v}`);

export const checkTopP = rangeCheck((v) => v > 0 && v <= 1, (v) => `Top_p must be between 0 and 1, got ${v}`);

export const checkMinP = rangeCheck((v) => v >= 0 && v <= 1, (v) => `Min_p must be between 0 and 1, got ${v}`);

export const checkTopK = rangeCheck((v) => v >= -1, () => 'Top_k must be null or greater than or equal to -1');

export const checkFrequencyPenalty = rangeCheck((v) => v >= -2 && v <= 2, (v) => `Frequency penalty must be between -2 and 2, got ${v}`);

export const checkPresencePenalty = rangeCheck((v) => v >= -2 && v <= 2, (v) => `Presence penalty must be between -2 and 2, got ${v}`);

export const checkRepetitionPenalty = rangeCheck((v) => v > 0 && v <= 2, (v) => `Repetition penalty must be between 0 and 2, got ${v}`);

export const checkN = rangeCheck((v) => v >= 1 && v <= MAX_N, (v) => `n must be between 1 and ${MAX_N}, got ${v}`);

export function checkTotalChoices(batch: number, n: number): void {
  const total = batch * n;
  if (total > MAX_TOTAL_CHOICES) {
    fail(`Total choices (batch_size × n = ${batch} × ${n} = ${total}) exceeds maximum of ${MAX_TOTAL_CHOICES}`);
  }
}

/** n > 1 needs sampling; temperature defaults to 1 when absent. */
export function checkNWithTemperature(n: unknown, temperature: unknown): void {
  if (typeof n !== 'number' || n <= 1) return;
  const t = typeof temperature === 'number' ? temperature : 1;
  if (t === 0) {
    fail(`When n > 1, temperature must be greater than 0 to ensure diverse outputs. Got n=${n}, temperature=${t}`);
  }
}

/** `label` is `Max tokens` or `Max completion tokens`. */
export function checkMaxTokens(value: unknown, label: string, limit: number): void {
  if (typeof value !== 'number') return;
  if (value === 0) fail(`${label} must be greater than 0, got 0`);
  if (value > limit) fail(`${label} must not exceed ${limit}, got ${value}`);
}

export function checkLogitBias(bias: unknown): void {
  if (!isObject(bias)) return;
  for (const [token, value] of Object.entries(bias)) {
    if (typeof value !== 'number') fail(`Logit bias value for token '${clip(token)}' must be a number, got ${clip(rustDebug(value))}`);
    if (value < -100 || value > 100) fail(`Logit bias for token '${token}' must be between -100 and 100, got ${value}`);
  }
}

/** Longest client value echoed into an error message: a 40 MB value must not come back as one. */
const MAX_ECHO_CHARS = 256;

function clip(text: string): string {
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text;
}

/** serde_json::Value's Debug form, which upstream prints for a non-number bias. */
function rustDebug(value: unknown): string {
  if (value === null) return 'Null';
  if (typeof value === 'string') return `String(${JSON.stringify(value)})`;
  if (typeof value === 'boolean') return `Bool(${value})`;
  if (Array.isArray(value)) return `Array ${JSON.stringify(value)}`;
  return `Object ${JSON.stringify(value)}`;
}

/** `stop`: a string, 1..32 strings, or 1..32 token ids. Other shapes fail to deserialize. */
export function checkStop(stop: unknown): void {
  if (!present(stop)) return;
  if (typeof stop === 'string') {
    if (stop === '') fail('Stop sequence cannot be empty');
    return;
  }
  if (!Array.isArray(stop)) throw deserializeError('stop', `invalid type: ${describeValue(stop)}, expected a string, an array of strings or an array of token ids`);
  if (stop.length === 0) fail('Stop sequences array cannot be empty');
  if (stop.every((s) => typeof s === 'string')) {
    if (stop.length > MAX_STOP_SEQUENCES) fail(`Maximum of ${MAX_STOP_SEQUENCES} stop sequences allowed, got ${stop.length}`);
    stop.forEach((s, i) => {
      if (s === '') fail(`Stop sequence at index ${i} cannot be empty`);
    });
    return;
  }
  if (!stop.every(isUint)) {
    throw deserializeError('stop', 'data did not match any variant: expected a string, an array of strings or an array of token ids');
  }
  if (stop.length > MAX_STOP_SEQUENCES) fail(`Maximum of ${MAX_STOP_SEQUENCES} stop token IDs allowed, got ${stop.length}`);
}

export function checkCommonExtRanges(body: Body): void {
  checkRepetitionPenalty(body.repetition_penalty);
  checkMinP(body.min_p);
  checkTopK(body.top_k);
}

export const checkTopLogprobs = rangeCheck((v) => v >= 0 && v <= 20, (v) => `Top_logprobs must be between 0 and 20, got ${v}`);

export const checkLogprobs = rangeCheck((v) => v >= 0 && v <= 5, (v) => `Logprobs must be between 0 and 5, got ${v}`);

export function checkBestOf(bestOf: unknown, n: unknown): void {
  if (typeof bestOf !== 'number') return;
  if (bestOf > 20) fail(`Best_of must be between 0 and 20, got ${bestOf}`);
  if (typeof n === 'number' && bestOf < n) fail(`Best_of must be greater than or equal to n, got best_of=${bestOf} and n=${n}`);
}

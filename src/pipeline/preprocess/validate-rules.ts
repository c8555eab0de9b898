// The generic request rules shared by chat and completions (reference/http.md §5.1, §5.4). Each
// throws a ValidationError whose text is what the client sees, `Validation: ` included.

import { ValidationError, type NvExt } from '../../protocols/index.js';
import { backtickList, deserializeError, describeValue, isObject, isUint, kindMismatch } from './json-types.js';
import { NVEXT_FIELDS } from './request-fields.js';

export const VALIDATION_PREFIX = 'Validation: ';
export const DEFAULT_MAX_OUTPUT_TOKENS = 1_048_576;
const MAX_N = 128;
const MAX_TOTAL_CHOICES = 128;
export const MAX_STOP_SEQUENCES = 32;

export function fail(message: string): never {
  throw new ValidationError(VALIDATION_PREFIX + message);
}

type Body = Record<string, unknown>;

function present(value: unknown): boolean {
  return value !== null && value !== undefined;
}

/** Unknown root fields, then the passthrough fields' types (upstream checks them together). */
export function checkUnsupportedFields(body: Body, known: Record<string, unknown>, ignore: boolean): void {
  if (!ignore) {
    const unknown = Object.keys(body).filter((k) => !(k in known));
    if (unknown.length > 0) fail(`Unsupported parameter(s): ${backtickList(unknown)}`);
  }
  if (present(body.cache_salt) && typeof body.cache_salt !== 'string') fail('`cache_salt` must be a string');
  for (const field of ['stop_token_ids', 'allowed_token_ids', 'logprob_token_ids'] as const) {
    const v = body[field];
    if (present(v) && !(Array.isArray(v) && v.every(isUint))) fail(`\`${field}\` must be an array of token IDs`);
  }
  if (present(body.detokenize) && typeof body.detokenize !== 'boolean') fail('`detokenize` must be a boolean');
  const bad = body.bad_words_token_ids;
  if (present(bad) && !(Array.isArray(bad) && bad.every((ids) => Array.isArray(ids) && ids.every(isUint)))) {
    fail('`bad_words_token_ids` must be an array of token ID arrays');
  }
}

/** Drops unknown root fields (when they are ignored rather than rejected). */
export function knownFieldsOnly(body: Body, known: Record<string, unknown>): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(body)) if (k in known) out[k] = v;
  return out;
}

/** `nvext` as serde parses it: unknown keys rejected, listing the accepted ones. */
export function parseNvext(value: unknown): NvExt | null {
  if (!present(value)) return null;
  if (!isObject(value)) fail(`invalid nvext: invalid type: ${describeValue(value)}, expected struct NvExt`);
  const names = Object.keys(NVEXT_FIELDS);
  for (const [key, v] of Object.entries(value)) {
    const kind = NVEXT_FIELDS[key];
    if (kind === undefined) fail(`invalid nvext: unknown field \`${key}\`, expected one of ${backtickList(names)}`);
    const mismatch = kindMismatch(v, kind);
    if (mismatch !== null) fail(`invalid nvext: \`${key}\`: ${mismatch}`);
  }
  const upload = value.metadata_upload;
  if (isObject(upload)) {
    for (const key of Object.keys(upload)) {
      if (key !== 'url') fail(`invalid nvext: unknown field \`${key}\`, expected \`url\``);
    }
    if (typeof upload.url !== 'string' || upload.url.trim() === '') fail('invalid nvext: `metadata_upload.url` cannot be empty');
  }
  return value as NvExt;
}

/** `nvext.extra_fields=["completion_token_ids"]` only makes sense with one choice. */
export function checkCompletionTokenIdsChoice(choices: number, nvext: NvExt | null): void {
  if (choices !== 1 && nvext?.extra_fields?.includes('completion_token_ids')) {
    fail('`nvext.extra_fields=["completion_token_ids"]` requires exactly one generated choice');
  }
}

export function checkStreamOptions(body: Body): void {
  if (present(body.stream_options) && body.stream !== true) {
    fail("The 'stream_options' field is only allowed when 'stream' is set to true.");
  }
}

/** At most one guided-decoding constraint; `guided_whitespace_pattern` only modifies one. */
export function checkGuidedDecoding(body: Body): void {
  const set = (
    [
      ['json', body.guided_json],
      ['regex', body.guided_regex],
      ['choice', body.guided_choice],
      ['grammar', body.guided_grammar],
      ['structural_tag', body.structural_tag],
    ] as const
  )
    .filter(([, v]) => present(v))
    .map(([name]) => name);
  if (set.length > 1) fail(`Only one guided-decoding constraint can be set; received: ${set.join(', ')}`);
}

export function checkModel(model: unknown): void {
  if (typeof model !== 'string' || model.trim() === '') fail('Model cannot be empty');
}

export function checkUser(user: unknown): void {
  if (typeof user === 'string' && user.trim() === '') fail('User ID cannot be empty');
}

function checkRange(value: unknown, ok: (v: number) => boolean, message: (v: number) => string): void {
  if (typeof value === 'number' && !ok(value)) fail(message(value));
}

export function checkTemperature(t: unknown): void {
  checkRange(t, (v) => v >= 0 && v <= 2, (v) => `Temperature must be between 0 and 2, got ${v}`);
}

export function checkTopP(p: unknown): void {
  checkRange(p, (v) => v > 0 && v <= 1, (v) => `Top_p must be between 0 and 1, got ${v}`);
}

export function checkMinP(p: unknown): void {
  checkRange(p, (v) => v >= 0 && v <= 1, (v) => `Min_p must be between 0 and 1, got ${v}`);
}

export function checkTopK(k: unknown): void {
  checkRange(k, (v) => v >= -1, () => 'Top_k must be null or greater than or equal to -1');
}

export function checkFrequencyPenalty(x: unknown): void {
  checkRange(x, (v) => v >= -2 && v <= 2, (v) => `Frequency penalty must be between -2 and 2, got ${v}`);
}

export function checkPresencePenalty(x: unknown): void {
  checkRange(x, (v) => v >= -2 && v <= 2, (v) => `Presence penalty must be between -2 and 2, got ${v}`);
}

export function checkRepetitionPenalty(x: unknown): void {
  checkRange(x, (v) => v > 0 && v <= 2, (v) => `Repetition penalty must be between 0 and 2, got ${v}`);
}

export function checkN(n: unknown): void {
  checkRange(n, (v) => v >= 1 && v <= MAX_N, (v) => `n must be between 1 and ${MAX_N}, got ${v}`);
}

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

// The body as a whole and its plain root fields: a JSON object, its required fields, each root
// field's JSON type (fields.ts), unknown fields and the passthroughs' types, and the rules of the
// fields that stand alone (stream_options, the guided-decoding constraints, model, user).

import { backtickList, checkKind, deserializeError, invalidType, isObject, isUint, present, type FieldKind } from '../json-types.js';
import { fail } from '../validation-failure.js';

export type Body = Record<string, unknown>;

export function asBody(body: unknown): Body {
  if (!isObject(body)) throw invalidType('', body, 'a JSON object');
  return body;
}

export function requireField(body: Body, field: string): void {
  if (body[field] === undefined) throw deserializeError('', `missing field \`${field}\``);
}

/** Each known root field's JSON type, in the body's order. */
export function checkTypes(body: Body, fields: Record<string, FieldKind>): void {
  // for-in over a plain body: no array of its keys (nor of its entries) on every request.
  for (const key in body) {
    const kind = fields[key];
    if (kind !== undefined) checkKind(body[key], kind, key);
  }
}

const TOKEN_ID_FIELDS = ['stop_token_ids', 'allowed_token_ids', 'logprob_token_ids'] as const;

function allKnown(body: Body, known: Record<string, unknown>): boolean {
  for (const key in body) if (!(key in known)) return false;
  return true;
}

/** Unknown root fields, then the passthrough fields' types (upstream checks them together). */
export function checkUnsupportedFields(body: Body, known: Record<string, unknown>, ignore: boolean): void {
  // The list of unknown names is built only when there is one (a request has none as a rule).
  if (!ignore && !allKnown(body, known)) fail(`Unsupported parameter(s): ${backtickList(Object.keys(body).filter((k) => !(k in known)))}`);
  if (present(body.cache_salt) && typeof body.cache_salt !== 'string') fail('`cache_salt` must be a string');
  for (let i = 0; i < TOKEN_ID_FIELDS.length; i++) {
    const field = TOKEN_ID_FIELDS[i]!;
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
  for (const k in body) if (k in known) out[k] = body[k];
  return out;
}

export function checkStreamOptions(body: Body): void {
  if (present(body.stream_options) && body.stream !== true) {
    fail("The 'stream_options' field is only allowed when 'stream' is set to true.");
  }
}

/** The guided-decoding constraints, by the name an error gives each. */
const GUIDED_CONSTRAINTS = [
  ['json', 'guided_json'],
  ['regex', 'guided_regex'],
  ['choice', 'guided_choice'],
  ['grammar', 'guided_grammar'],
  ['structural_tag', 'structural_tag'],
] as const;

/** At most one guided-decoding constraint; `guided_whitespace_pattern` only modifies one. */
export function checkGuidedDecoding(body: Body): void {
  let count = 0;
  for (let i = 0; i < GUIDED_CONSTRAINTS.length; i++) if (present(body[GUIDED_CONSTRAINTS[i]![1]])) count++;
  if (count <= 1) return;
  const set = GUIDED_CONSTRAINTS.filter(([, field]) => present(body[field])).map(([name]) => name);
  fail(`Only one guided-decoding constraint can be set; received: ${set.join(', ')}`);
}

export function checkModel(model: unknown): void {
  if (typeof model !== 'string' || model.trim() === '') fail('Model cannot be empty');
}

export function checkUser(user: unknown): void {
  if (typeof user === 'string' && user.trim() === '') fail('User ID cannot be empty');
}

/** Chat's and Responses' answer to `moderation`: a client asking for it relies on it, so it is not ignored. */
const MODERATION_REFUSAL = '`moderation` is not supported: this gateway runs no moderation model, so it cannot moderate the input or the output; remove the field';

export function checkModeration(moderation: unknown): void {
  if (moderation !== undefined && moderation !== null) fail(MODERATION_REFUSAL);
}

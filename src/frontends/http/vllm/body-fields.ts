// The field checks vLLM's tokenizer and generate routes make of their bodies: each failure is a 400
// that names the field by its path (`sampling_params.top_k`, `tokens[2]`).
import { ValidationError } from '../../../protocols/index.js';

export type Body = Record<string, unknown>;

function isBody(value: unknown): value is Body {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The body as an object; anything else is a 400. */
export function bodyObject(raw: unknown, path = 'body'): Body {
  if (!isBody(raw)) throw new ValidationError(`\`${path}\` must be a JSON object`);
  return raw;
}

/** The body's `model`: a non-empty string. */
export function modelOf(body: Body): string {
  const model = body.model;
  if (typeof model !== 'string' || model.trim() === '') throw new ValidationError('`model` is required and must be a non-empty string');
  return model;
}

/** An optional boolean; null and absent give `fallback`. */
export function optionalBool(body: Body, field: string, fallback: boolean, path = field): boolean {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new ValidationError(`\`${path}\` must be a boolean`);
  return value;
}

/** An optional object; null and absent give undefined. */
export function optionalObject(body: Body, field: string, path = field): Body | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isBody(value)) throw new ValidationError(`\`${path}\` must be a JSON object`);
  return value;
}

/** A list of token ids (non-negative integers); `nonEmpty` refuses `[]`. */
export function tokenIds(body: Body, field: string, nonEmpty: boolean): number[] {
  const value = body[field];
  if (!Array.isArray(value)) throw new ValidationError(`\`${field}\` is required and must be an array of token ids`);
  if (nonEmpty && value.length === 0) throw new ValidationError(`\`${field}\` must contain at least one token ID`);
  value.forEach((id, i) => {
    if (!Number.isInteger(id) || (id as number) < 0) throw new ValidationError(`\`${field}[${i}]\` must be a non-negative integer token id`);
  });
  return value as number[];
}

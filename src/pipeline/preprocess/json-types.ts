// Type checks on the raw JSON body. A value of the wrong type is a deserialization failure, not a
// rule violation: upstream reports it with serde's words under axum's prefix, and so do we, with
// the field's path in front so the client knows which one.

import { ValidationError } from '../../protocols/index.js';

export type FieldKind = 'bool' | 'number' | 'int' | 'uint' | 'u64' | 'string' | 'object' | 'string[]' | 'uint[]' | 'any';

const DESERIALIZE_PREFIX = 'Failed to deserialize the JSON body into the target type: ';

const EXPECTED: Record<FieldKind, string> = {
  bool: 'a boolean',
  number: 'a number',
  int: 'an integer',
  uint: 'a non-negative integer',
  u64: 'a u64 (a non-negative integer, or its decimal digits as a string)',
  string: 'a string',
  object: 'a JSON object',
  'string[]': 'an array of strings',
  'uint[]': 'an array of non-negative integers',
  any: 'any value',
};

export function deserializeError(path: string, detail: string): ValidationError {
  return new ValidationError(`${DESERIALIZE_PREFIX}${path ? `${path}: ` : ''}${detail}`);
}

/** serde's description of an unexpected value: `string "hot"`, `integer \`5\``, `sequence`, ... */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (Array.isArray(value)) return 'sequence';
  return 'map';
}

export function invalidType(path: string, value: unknown, expected: string): ValidationError {
  return deserializeError(path, `invalid type: ${describeValue(value)}, expected ${expected}`);
}

/** serde's Option: null and absent are the same. */
export function present(value: unknown): boolean {
  return value !== null && value !== undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// Worker ids are u64 lease ids above 2^53: JSON numbers cannot hold them exactly, digit strings can.
const U64_DIGITS = /^\d{1,20}$/;

export function isUint(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

function matches(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'bool':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'int':
      return Number.isInteger(value);
    case 'uint':
      return isUint(value);
    case 'u64':
      return isUint(value) || (typeof value === 'string' && U64_DIGITS.test(value) && BigInt(value) < 2n ** 64n);
    case 'string':
      return typeof value === 'string';
    case 'object':
      return isObject(value);
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'uint[]':
      return Array.isArray(value) && value.every(isUint);
    case 'any':
      return true;
  }
}

/** serde's complaint about a value of the wrong kind, or null when it fits. Null means "absent". */
export function kindMismatch(value: unknown, kind: FieldKind): string | null {
  if (value === null || value === undefined || matches(value, kind)) return null;
  return `invalid type: ${describeValue(value)}, expected ${EXPECTED[kind]}`;
}

export function checkKind(value: unknown, kind: FieldKind, path: string): void {
  const mismatch = kindMismatch(value, kind);
  if (mismatch !== null) throw deserializeError(path, mismatch);
}

/** `\`a\`, \`b\``: serde's way of listing names. */
export function backtickList(names: readonly string[]): string {
  return names.map((n) => `\`${n}\``).join(', ');
}

// JSON answers that carry u64 values (tensor data, worker instance ids) as bigints: written as
// JSON numbers with every digit, as upstream's serde writes a u64.
import { randomUUID } from 'node:crypto';

// A per-process random marker: no client string can be mistaken for a marked integer.
const BIGINT_MARK = `bigint-${randomUUID()}:`;
const BIGINT_VALUE = new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g');

/** JSON text in which 64-bit integers keep every digit (JSON numbers, not strings). */
export function stringifyExact(value: unknown): string {
  let marked = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    marked = true;
    return `${BIGINT_MARK}${v}`;
  });
  return marked ? text.replace(BIGINT_VALUE, '$1') : text;
}

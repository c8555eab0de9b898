// Binary and unary operators with the reference runtime's rules (its order of checks included:
// equality first, then undefined and none, then numbers, lists, strings, mappings).

import { isDict, isInteger, isTuple, Namespace, notReproduced, own, toText, truthy } from './values.js';

type Binary = (left: unknown, right: unknown) => unknown;

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/**
 * `==`: the reference compares raw values with `==`: primitives loosely, containers by identity
 * (each request's JSON gives every container its own identity, as the reference's conversion does).
 */
function equals(left: unknown, right: unknown): boolean {
  const leftObject = isObject(left);
  const rightObject = isObject(right);
  if (isTuple(left) || isTuple(right)) return notReproduced('== of a tuple');
  if (leftObject && rightObject) return left === right;
  // A container against a primitive: JavaScript's `==` compares the container's text.
  if (leftObject) return right !== null && right !== undefined && plainText(left) == right;
  if (rightObject) return left !== null && left !== undefined && left == plainText(right);
  return left == right;
}

/** `+` and `~` join the raw values' JavaScript text, as the reference does (a list: its items' text, comma-joined). */
function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(itemText).join(',');
  if (isDict(value) || value instanceof Namespace) return '[object Map]';
  return notReproduced('text of this value');
}

/** An item's text inside a joined list; the reference's none holds no value, so it reads `undefined` too. */
function itemText(value: unknown): string {
  return value === null || value === undefined ? 'undefined' : toText(value);
}

function arithmetic(op: (a: number, b: number) => number): Binary {
  return (a, b) => {
    if (!isInteger(a) || !isInteger(b)) return notReproduced('arithmetic on floats');
    return op(a, b);
  };
}

const NUMERIC = new Map<string, Binary>([
  ['+', arithmetic((a, b) => a + b)],
  ['-', arithmetic((a, b) => a - b)],
  ['*', arithmetic((a, b) => a * b)],
  ['%', arithmetic((a, b) => a % b)],
  ['//', arithmetic((a, b) => Math.floor(a / b))],
  ['<', (a, b) => (a as number) < (b as number)],
  ['>', (a, b) => (a as number) > (b as number)],
  ['<=', (a, b) => (a as number) <= (b as number)],
  ['>=', (a, b) => (a as number) >= (b as number)],
]);

function membership(left: unknown, right: unknown): boolean | undefined {
  if (Array.isArray(right)) {
    if (Array.isArray(left)) return undefined;
    if (isObject(left)) return notReproduced('container in list');
    return right.some((item) => item === left);
  }
  if (typeof left === 'string' && typeof right === 'string') return right.includes(left);
  if (typeof left === 'string' && isDict(right)) return own(right, left);
  return undefined;
}

/** Operators the compiler accepts; `and`/`or` short-circuit there. */
export const BINARY_OPERATORS = new Set(['==', '!=', '~', '+', '-', '*', '%', '//', '<', '>', '<=', '>=', 'in', 'not in']);

export function binary(op: string, left: unknown, right: unknown): unknown {
  if (op === '==') return equals(left, right);
  if (op === '!=') return !equals(left, right);
  const isIn = op === 'in' || op === 'not in';
  if (left === undefined || right === undefined) {
    if (right === undefined && isIn) return op === 'not in';
    return notReproduced('operation on undefined');
  }
  if (left === null || right === null) return notReproduced('operation on none');
  if (op === '~') return plainText(left) + plainText(right);
  if (typeof left === 'number' && typeof right === 'number') {
    const numeric = NUMERIC.get(op);
    return numeric ? numeric(left, right) : notReproduced(`${op} on numbers`);
  }
  if (Array.isArray(left) && Array.isArray(right)) {
    return op === '+' ? left.concat(right) : notReproduced(`${op} on lists`);
  }
  if (isIn) {
    const found = membership(left, right);
    if (found === undefined) return notReproduced(`${op} on these types`);
    return op === 'in' ? found : !found;
  }
  if (op === '+' && (typeof left === 'string' || typeof right === 'string')) return plainText(left) + plainText(right);
  return notReproduced(`${op} on these types`);
}

export function unary(op: string, value: unknown): unknown {
  if (op === 'not') return !truthy(value);
  if (typeof value !== 'number' && typeof value !== 'boolean') return notReproduced('sign of a non-number');
  const n = Number(value);
  return op === '-' ? -n : n;
}

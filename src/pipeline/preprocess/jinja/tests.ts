// `value is name`: the tests the reference runtime knows, by name.

import { isDict, isInteger, isTuple, JinjaFunction, notReproduced } from './values.js';

export type JinjaTest = (value: unknown, other?: unknown) => boolean;

const isNumber = (v: unknown): boolean => typeof v === 'number';

function parity(even: boolean): JinjaTest {
  return (v) => {
    if (!isInteger(v)) return notReproduced('odd/even of a non-integer');
    return (v % 2 === 0) === even;
  };
}

function equal(a: unknown, b?: unknown): boolean {
  if (b === undefined || typeof a === 'object' || typeof b === 'object') return notReproduced('equalto');
  return a === b;
}

export const TESTS = new Map<string, JinjaTest>([
  ['boolean', (v) => typeof v === 'boolean'],
  ['callable', (v) => v instanceof JinjaFunction],
  ['odd', parity(false)],
  ['even', parity(true)],
  ['false', (v) => v === false],
  ['true', (v) => v === true],
  ['none', (v) => v === null],
  ['string', (v) => typeof v === 'string'],
  ['number', isNumber],
  ['integer', (v) => isInteger(v)],
  ['iterable', (v) => typeof v === 'string' || (Array.isArray(v) && !isTuple(v))],
  ['mapping', (v) => isDict(v)],
  ['sequence', (v) => typeof v === 'string' || Array.isArray(v) || isDict(v)],
  ['lower', (v) => typeof v === 'string' && v === v.toLowerCase()],
  ['upper', (v) => typeof v === 'string' && v === v.toUpperCase()],
  ['defined', (v) => v !== undefined],
  ['undefined', (v) => v === undefined],
  ['equalto', equal],
  ['eq', equal],
]);

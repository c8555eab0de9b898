// A deliberately small JSON Schema checker for tool-call arguments: `type` (one or a list),
// `properties`, `required`, `items` and `enum`. Enough to catch the mistakes clients make
// (a number where the tool takes a string), without pulling in a full validator per request.

import { isObject } from '../json-types.js';

type Schema = Record<string, unknown>;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

/**
 * The first way `value` breaks `schema`, as text naming the path (e.g. "`location` must be of type
 * string, got number"), or null when it conforms.
 */
export function schemaViolation(value: unknown, schema: unknown, path = ''): string | null {
  if (!isObject(schema)) return null;
  const where = path === '' ? 'the value' : `\`${path}\``;
  const actual = jsonType(value);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : null;
  if (types && !types.some((t) => typeMatches(t, actual))) {
    return `${where} must be of type ${types.join(' or ')}, got ${actual === 'integer' ? 'number' : actual}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${where} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  }
  if (isObject(value)) {
    for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (!(name in value)) return `${path === '' ? '' : `\`${path}\`: `}missing required property \`${name}\``;
    }
    const props = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    for (const [name, sub] of Object.entries(props)) {
      if (!(name in value)) continue;
      const found = schemaViolation(value[name], sub, path === '' ? name : `${path}.${name}`);
      if (found) return found;
    }
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    for (let i = 0; i < value.length; i++) {
      const found = schemaViolation(value[i], schema.items, `${path}[${i}]`);
      if (found) return found;
    }
  }
  return null;
}

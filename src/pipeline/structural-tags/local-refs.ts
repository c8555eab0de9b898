// Local `$ref`s of a tool's parameters schema, inlined so one argument's schema stands on its own
// (the Kimi K3 builder constrains each argument separately, away from the root's `$defs`). Only
// references into the same document are followed; anything that would change the reference scope,
// or a reference with validation keywords beside it, is left unresolved (null), and the caller falls
// back to a looser grammar rather than a wrong one. Depth and total work are bounded: references can
// form cycles, and repeated ones a DAG that expands exponentially.

import { jsonPointerTarget } from '../json-pointer.js';

type Json = Record<string, unknown>;

const MAX_DEPTH = 16;
const MAX_NODES = 4096;
/** Keywords that may sit beside `$ref` without constraining anything. */
const ANNOTATIONS = new Set(['$ref', 'description', 'title', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
const SCOPE_CHANGES = ['$id', '$dynamicRef', '$recursiveRef'];
/** Schema positions holding a map of subschemas, a list of them, or one (or a list) of them (the GLM builder walks them too). */
export const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
export const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
export const SCHEMA_SLOTS = ['items', 'additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties'];

export const isPlainObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `schema` with its local references into `root` inlined; null when that cannot be done safely. */
export function inlineLocalRefs(root: unknown, schema: unknown): unknown {
  return resolve(root, schema, 0, { left: MAX_NODES });
}

function resolve(root: unknown, schema: unknown, depth: number, budget: { left: number }): unknown {
  if (budget.left === 0 || depth >= MAX_DEPTH) return null;
  budget.left--;
  if (!isPlainObject(schema)) return typeof schema === 'boolean' ? schema : null;
  if (SCOPE_CHANGES.some((key) => key in schema)) return null;
  if ('$ref' in schema) {
    if (Object.keys(schema).some((key) => !ANNOTATIONS.has(key))) return null;
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) return null;
    const target = jsonPointerTarget(root, ref.slice(1));
    return target === undefined ? null : resolve(root, target, depth + 1, budget);
  }
  const out: Json = { ...schema };
  delete out.$defs;
  delete out.definitions;
  const sub = (child: unknown): unknown => resolve(root, child, depth, budget);
  for (const key of SCHEMA_MAPS) {
    const children = schema[key];
    if (!isPlainObject(children)) continue;
    const mapped = mapValues(children, sub);
    if (mapped === null) return null;
    out[key] = mapped;
  }
  if (isPlainObject(schema.dependencies)) {
    // A list names required properties: data, not a schema.
    const mapped = mapValues(schema.dependencies, (dependency) => (Array.isArray(dependency) ? dependency : sub(dependency)));
    if (mapped === null) return null;
    out.dependencies = mapped;
  }
  for (const key of [...SCHEMA_LISTS, ...SCHEMA_SLOTS]) {
    const child = schema[key];
    if (child === undefined) continue;
    if (Array.isArray(child)) {
      const items = child.map(sub);
      if (items.includes(null)) return null;
      out[key] = items;
    } else if (SCHEMA_SLOTS.includes(key)) {
      const resolved = sub(child);
      if (resolved === null) return null;
      out[key] = resolved;
    }
  }
  return out;
}

function mapValues(object: Json, f: (value: unknown) => unknown): Json | null {
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    const mapped = f(value);
    if (mapped === null) return null;
    out[key] = mapped;
  }
  return out;
}

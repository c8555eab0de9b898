// A tool's arguments schema as the GLM-4.7 tag can carry it. xgrammar's `glm_xml` style does not
// see through a property's top-level `$ref` (a string argument would come out as quoted JSON), so
// a property that is only a local reference plus annotations is inlined; and it ignores the
// constraints written beside a `$ref`, so a schema with such a constraint that its target does not
// already state is refused (null: no tag, rather than a grammar weaker than the schema).

import { isDeepStrictEqual } from 'node:util';
import { jsonPointerTarget } from '../json-pointer.js';
import { isPlainObject, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SLOTS } from './local-refs.js';

type Json = Record<string, unknown>;

/** Keywords beside a `$ref` that constrain nothing. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', '$comment', '$id']);
const MAX_REF_DEPTH = 16;
const MAX_NODES = 4096;
/** How many reference hops a property is followed through; a cycle stays a `$ref`. */
const MAX_INLINE_HOPS = 8;

class UnprovableSibling extends Error {}

const localTarget = (root: unknown, ref: unknown): unknown => (typeof ref === 'string' && ref.startsWith('#') ? jsonPointerTarget(root, ref.slice(1)) : undefined);

/** `schema` ready for the `glm_xml` style; null when a `$ref` sibling constraint could be lost. */
export function glmArgumentsSchema(schema: unknown): unknown {
  try {
    checkRefSiblings(schema);
  } catch (error) {
    if (error instanceof UnprovableSibling) return null;
    throw error;
  }
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return schema;
  const properties: Json = {};
  for (const [name, property] of Object.entries(schema.properties)) properties[name] = inlineAnnotatedRef(schema, property);
  return { ...schema, properties };
}

/** The referenced schema with the property's annotations over it, hop by hop, while only annotations sit beside the `$ref`. */
function inlineAnnotatedRef(root: unknown, property: unknown): unknown {
  let current = property;
  for (let hop = 0; hop < MAX_INLINE_HOPS; hop++) {
    if (!isPlainObject(current) || Object.keys(current).some((key) => key !== '$ref' && !ANNOTATIONS.has(key))) break;
    const target = localTarget(root, current.$ref);
    if (target === undefined) break;
    const { $ref: _ref, ...annotations } = current;
    current = isPlainObject(target) ? { ...target, ...annotations } : target;
  }
  return current;
}

/**
 * The schema a `$ref` resolves to, following aliases; throws when a constraint beside a `$ref`
 * is not the same constraint on its (resolved) target, the only case where losing it is harmless.
 */
function checkedTarget(schema: unknown, root: unknown, depth: number): unknown {
  if (!isPlainObject(schema) || !('$ref' in schema)) return schema;
  const next = depth < MAX_REF_DEPTH ? localTarget(root, schema.$ref) : undefined;
  const target = next === undefined ? undefined : checkedTarget(next, root, depth + 1);
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$ref' || ANNOTATIONS.has(keyword)) continue;
    if (!isPlainObject(target) || !isDeepStrictEqual(target[keyword], value)) throw new UnprovableSibling(keyword);
  }
  return target;
}

/** Every schema position of `root` (not its data: defaults, examples, enums), each node once, within a node budget. */
function checkRefSiblings(root: unknown): void {
  const pending: unknown[] = [root];
  const visited = new Set<unknown>();
  while (pending.length > 0) {
    const schema = pending.pop();
    if (visited.has(schema)) continue;
    visited.add(schema);
    if (visited.size > MAX_NODES) throw new UnprovableSibling('node budget');
    checkedTarget(schema, root, 0);
    if (!isPlainObject(schema)) continue;
    const target = localTarget(root, schema.$ref);
    if (target !== undefined) pending.push(target);
    for (const key of [...SCHEMA_MAPS, 'dependencies']) {
      const children = schema[key];
      if (isPlainObject(children)) pending.push(...Object.values(children).filter((child) => isPlainObject(child) || typeof child === 'boolean'));
    }
    for (const key of [...SCHEMA_LISTS, ...SCHEMA_SLOTS, 'contentSchema']) {
      const child = schema[key];
      if (Array.isArray(child)) pending.push(...child);
      else if (isPlainObject(child) || typeof child === 'boolean') pending.push(child);
    }
  }
}

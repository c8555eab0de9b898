// MiniMax-M3's parameter values, as upstream reads them: a value is text typed by the tool's
// schema (integers, numbers, booleans, null where the schema allows it, JSON objects and arrays),
// or, when it holds tags of its own, an object of its child tags (repeated tags become an array,
// an `<item>` list under an array schema is an array, text beside tags is `$text`). Without a
// schema a value is its text. The schema is followed through `$ref`, `anyOf` and `oneOf`.

import { jsonPointerTarget } from '../../../../json-pointer.js';

const NAMESPACE = ']<]minimax[>[';
const TAG_START = `${NAMESPACE}<`;

type Json = unknown;
type Schema = Record<string, unknown>;

/** Schema walks are bounded (shared references can fan out), as upstream bounds them. */
const MAX_WORK = 1024;
const MAX_DEPTH = 64;

class SchemaWalker {
  private work = MAX_WORK;

  constructor(private readonly root: unknown) {}

  private resolve(schema: unknown, depth: number): Schema | null {
    let current = schema;
    const seen = new Set<string>();
    for (;;) {
      if (!isSchema(current) || this.work-- <= 0 || depth > MAX_DEPTH) return isSchema(current) ? current : null;
      const ref = current.$ref;
      if (typeof ref !== 'string' || !ref.startsWith('#') || seen.has(ref)) return current;
      // A `$ref` beside constraints of its own is left as it is.
      if (Object.keys(current).some((key) => !REF_NEIGHBOURS.has(key))) return current;
      seen.add(ref);
      const target = jsonPointerTarget(this.root, ref.slice(1));
      if (target === undefined) return current;
      current = target;
    }
  }

  hasType(schema: unknown, type: string, depth = 0): boolean {
    const resolved = this.resolve(schema, depth);
    if (resolved === null) return false;
    const declared = resolved.type;
    if (declared === type || (Array.isArray(declared) && declared.includes(type))) return true;
    return branches(resolved).some((option) => this.hasType(option, type, depth + 1));
  }

  permitsNull(schema: unknown): boolean {
    const resolved = this.resolve(schema, 0);
    if (resolved === null) return false;
    return this.hasType(resolved, 'null') || resolved.nullable === true || (resolved.type === undefined && resolved.anyOf === undefined && resolved.oneOf === undefined);
  }

  arrayItem(schema: unknown, depth = 0): unknown {
    const resolved = this.resolve(schema, depth);
    if (resolved === null) return undefined;
    if (resolved.items !== undefined) return resolved.items;
    for (const option of branches(resolved)) {
      const items = this.arrayItem(option, depth + 1);
      if (items !== undefined) return items;
    }
    return undefined;
  }

  /** The schema of child tag `tag` of an object; one object branch of a union decides, two do not. */
  objectChild(schema: unknown, tag: string, depth = 0): unknown {
    const resolved = this.resolve(schema, depth);
    if (resolved === null) return undefined;
    const properties = resolved.properties;
    if (isSchema(properties) && properties[tag] !== undefined) return properties[tag];
    if (isSchema(resolved.additionalProperties)) return resolved.additionalProperties;
    const union = resolved.anyOf ?? resolved.oneOf;
    if (!Array.isArray(union) || (resolved.anyOf !== undefined && resolved.oneOf !== undefined)) return undefined;
    const objects = union.filter((branch) => this.mayBeObject(branch, depth + 1));
    return objects.length === 1 ? this.objectChild(objects[0], tag, depth + 1) : undefined;
  }

  private mayBeObject(schema: unknown, depth: number): boolean {
    if (schema === false) return false;
    const resolved = this.resolve(schema, depth);
    if (resolved === null) return true;
    const type = resolved.type;
    if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) return false;
    if ('const' in resolved && !isSchema(resolved.const)) return false;
    if (Array.isArray(resolved.enum) && !resolved.enum.some(isSchema)) return false;
    if (Array.isArray(resolved.allOf) && !resolved.allOf.every((branch) => this.mayBeObject(branch, depth + 1))) return false;
    for (const key of ['anyOf', 'oneOf'] as const) {
      const union = resolved[key];
      if (Array.isArray(union) && !union.some((branch) => this.mayBeObject(branch, depth + 1))) return false;
    }
    return true;
  }
}

const REF_NEIGHBOURS = new Set(['$ref', 'title', 'description', 'default', 'examples', '$comment']);

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function branches(schema: Schema): unknown[] {
  return [schema.anyOf, schema.oneOf].flatMap((union) => (Array.isArray(union) ? union : []));
}

const ENTITIES: readonly [RegExp, string][] = [
  [/&lt;/g, '<'],
  [/&gt;/g, '>'],
  [/&amp;/g, '&'],
  [/&quot;/g, '"'],
  [/&#x27;/g, "'"],
  [/&#39;/g, "'"],
];

function unescapeEntities(text: string): string {
  return ENTITIES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}

const INTEGER = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

function jsonOrUndefined(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** A value written as text, as its schema types it; the text itself where it is not of that type. */
function scalarValue(raw: string, schema: unknown, walker: SchemaWalker): Json {
  const value = unescapeEntities(raw);
  if (schema === undefined) return value;
  const trimmed = value.trim();
  if (trimmed.toLowerCase() === 'null' && walker.permitsNull(schema)) return null;
  if (walker.hasType(schema, 'string') || walker.hasType(schema, 'enum')) return value;
  if (walker.hasType(schema, 'integer')) return INTEGER.test(trimmed) ? Number(trimmed) : value;
  if (walker.hasType(schema, 'number')) return DECIMAL.test(trimmed) ? Number(trimmed) : value;
  if (walker.hasType(schema, 'boolean')) {
    const word = trimmed.toLowerCase();
    return word === 'true' || word === '1' ? true : word === 'false' || word === '0' ? false : value;
  }
  for (const [type, empty] of [['object', {}], ['array', []]] as const) {
    if (!walker.hasType(schema, type)) continue;
    if (trimmed === '') return empty;
    const json = jsonOrUndefined(trimmed);
    if (json !== undefined) return json;
  }
  return value;
}

/** Adds `value` under `key`; a key given again collects its values into an array (extending one it holds, as upstream). */
function addMember(target: Record<string, Json>, key: string, value: Json): void {
  if (!Object.hasOwn(target, key)) target[key] = value;
  else {
    const existing = target[key];
    target[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
}

/** One open tag while reading nested values. */
class Node {
  /** Undefined: a scalar so far (its text); else an object or an array. */
  value: Record<string, Json> | Json[] | undefined;
  readonly texts: string[] = [];

  constructor(
    readonly tag: string | null,
    readonly schema: unknown,
    private readonly walker: SchemaWalker,
    value?: Json[] | Record<string, Json>,
  ) {
    this.value = value;
  }

  result(): Json {
    if (this.value === undefined) return scalarValue(this.texts.join(''), this.schema, this.walker);
    if (Array.isArray(this.value)) return this.value;
    if (this.texts.length > 0) {
      let key = '$text';
      while (Object.hasOwn(this.value, key)) key = `$${key}`;
      this.value[key] = this.texts.join('');
    }
    return this.value;
  }

  adopt(child: Node): void {
    const value = child.result();
    if (Array.isArray(this.value)) this.value.push(value);
    else {
      this.value ??= {};
      addMember(this.value, child.tag ?? '', value);
    }
  }

  addText(text: string): void {
    if (Array.isArray(this.value)) this.value.push(scalarValue(text, this.walker.arrayItem(this.schema), this.walker));
    else this.texts.push(text);
  }

  childSchema(tag: string): unknown {
    if (tag === 'item') {
      const item = this.walker.arrayItem(this.schema);
      if (item !== undefined) return item;
    }
    return this.schema === undefined ? undefined : this.walker.objectChild(this.schema, tag);
  }
}

/** A value holding tags: each piece after a namespace token is a tag and the text after it. */
function nestedValue(raw: string, schema: unknown, walker: SchemaWalker): Json {
  const pieces = raw.split(NAMESPACE);
  const listOf = (at: number, of: unknown): Json[] | undefined =>
    walker.hasType(of, 'array') && pieces[at]?.startsWith('<item>') === true ? [] : undefined;
  const root = new Node(null, schema, walker, listOf(1, schema) ?? {});
  if ((pieces[0] ?? '').trim() !== '') root.texts.push(pieces[0]!);
  const stack = [root];
  for (let at = 1; at < pieces.length; at++) {
    const piece = pieces[at]!;
    const gt = piece.indexOf('>');
    const closing = piece.startsWith('</');
    if (!piece.startsWith('<')) {
      if (piece.trim() !== '') stack[stack.length - 1]!.addText(piece);
      continue;
    }
    const tag = gt < 0 ? piece.slice(closing ? 2 : 1) : piece.slice(closing ? 2 : 1, gt);
    const after = gt < 0 ? '' : piece.slice(gt + 1);
    if (closing) {
      // Closes up to the matching open tag; unclosed ones inside it close with it.
      while (stack.length > 1) {
        const node = stack.pop()!;
        stack[stack.length - 1]!.adopt(node);
        if (node.tag === tag) break;
      }
      if (after.trim() !== '') stack[stack.length - 1]!.addText(after);
      continue;
    }
    if (tag === '') continue;
    const childSchema = stack[stack.length - 1]!.childSchema(tag);
    const child = new Node(tag, childSchema, walker, listOf(at + 1, childSchema));
    if (after.trim() !== '') child.texts.push(after);
    stack.push(child);
  }
  while (stack.length > 1) {
    const node = stack.pop()!;
    stack[stack.length - 1]!.adopt(node);
  }
  return root.result();
}

/** The arguments object of an invoke's body, typed by the tool's parameters schema when given. */
export function minimaxParameters(body: string, parametersSchema: Record<string, unknown> | undefined): Record<string, Json> {
  const walker = new SchemaWalker(parametersSchema ?? null);
  const properties = isSchema(parametersSchema?.properties) ? parametersSchema.properties : parametersSchema;
  const args: Record<string, Json> = {};
  let at = 0;
  for (;;) {
    const start = body.indexOf(TAG_START, at);
    if (start < 0) break;
    const nameStart = start + TAG_START.length;
    if (body[nameStart] === '/') {
      at = nameStart + 1;
      continue;
    }
    const nameEnd = body.indexOf('>', nameStart);
    if (nameEnd < 0) break;
    const name = body.slice(nameStart, nameEnd);
    if (name === '' || /\s/.test(name)) {
      at = nameEnd + 1;
      continue;
    }
    const close = `${NAMESPACE}</${name}>`;
    const valueEnd = body.indexOf(close, nameEnd + 1);
    if (valueEnd < 0) break;
    const raw = body.slice(nameEnd + 1, valueEnd);
    const schema = isSchema(properties) ? properties[name] : undefined;
    addMember(args, name, raw.includes(TAG_START) ? nestedValue(raw, schema, walker) : scalarValue(raw, schema, walker));
    at = valueEnd + close.length;
  }
  return args;
}

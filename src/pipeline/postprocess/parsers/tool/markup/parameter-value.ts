// A parameter value the model wrote as text (qwen3_coder, glm47, minimax_m2), as the JSON it stands
// for: typed by the tool's parameter schema when the request gave one, as upstream does, so
// `<parameter=n>3</parameter>` is the number 3 for an integer parameter and the text "3" for a string.

import type { ToolSpec } from '../parser.js';
import type { ParameterArgumentsMarkup } from './markup-format.js';

/** The JSON schema type of parameter `key` of tool `name`, when the request says. */
export function parameterType(tools: readonly ToolSpec[], name: string, key: string): string | undefined {
  const properties = tools.find((tool) => tool.name === name)?.parameters?.['properties'];
  if (typeof properties !== 'object' || properties === null) return undefined;
  const schema = (properties as Record<string, unknown>)[key];
  if (typeof schema !== 'object' || schema === null) return undefined;
  const type = (schema as Record<string, unknown>)['type'];
  if (typeof type === 'string') return type;
  // `["integer", "null"]`: the first type that is not null decides.
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === 'string' && t !== 'null');
  return undefined;
}

/** `text` parsed as JSON, or `fallback` when it is not JSON. */
export function jsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}

const integer = (text: string): unknown => (/^[-+]?\d+$/.test(text) ? Number(text) : text);
const number = (text: string): unknown => (text !== '' && Number.isFinite(Number(text)) ? Number(text) : text);
const BOOLEANS: Record<string, boolean> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };
const boolean = (text: string): unknown => BOOLEANS[text.toLowerCase()] ?? text;

/** By schema type, with the aliases models write (as upstream). */
const TYPED: Record<string, (text: string) => unknown> = {
  string: (text) => text,
  integer,
  int: integer,
  number,
  float: number,
  double: number,
  boolean,
  bool: boolean,
};

/** An object, array or string written as JSON (glm47 writes such values so whatever the schema). */
const JSON_SHAPED = /^\s*[[{"]/;

/** The items of an array written as `a, b, c`, as glm47's parser reads one upstream. */
function commaItems(text: string): unknown {
  const json = jsonOr(text, undefined);
  return Array.isArray(json) ? json : text.split(',').map((item) => item.trim());
}

/**
 * `text` as JSON of schema type `type`, text itself when it is not of that type; with no type, the
 * format's `untyped` decides: the text, or (`json`) the object, array or string it spells as JSON.
 */
export function typedValue(
  text: string,
  type: string | undefined,
  style: Pick<ParameterArgumentsMarkup, 'untyped' | 'commaArrays'>,
): unknown {
  if (type === undefined) return style.untyped === 'json' && JSON_SHAPED.test(text) ? jsonOr(text, text) : text;
  if (text.toLowerCase() === 'null' && type !== 'string') return null;
  if (type === 'array' && style.commaArrays === true) return commaItems(text);
  const typed = TYPED[type];
  if (typed !== undefined) return typed(text);
  return jsonOr(text, text);
}

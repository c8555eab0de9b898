// A parsed request body may be nested arbitrarily deep (V8's JSON.parse is iterative), but every
// later step that walks it recursively (validators, schema checks, chat templates, JSON.stringify
// on the wire) would overflow the stack. One iterative walk right after parsing bounds the depth
// for all of them, with serde_json's limit and words, as upstream's axum extractor answers.

import { deserializeError } from './json-types.js';

/** serde_json's recursion limit: arrays and objects nested deeper than this are refused. */
export const MAX_JSON_DEPTH = 128;

/** How many leading steps of the offending path the message shows. */
const PATH_STEPS_SHOWN = 4;

interface Frame {
  value: unknown;
  depth: number;
  /** The path from the root; only its first steps are kept, it is for the message. */
  path: readonly (string | number)[];
}

function render(path: readonly (string | number)[]): string {
  let out = '';
  for (const step of path.slice(0, PATH_STEPS_SHOWN)) {
    out += typeof step === 'number' ? `[${step}]` : out === '' ? step : `.${step}`;
  }
  return path.length > PATH_STEPS_SHOWN ? `${out}…` : out;
}

/** Paths are only built while they are short; deeper down, the parent's is shared. */
function childPath(path: readonly (string | number)[], step: string | number): readonly (string | number)[] {
  return path.length > PATH_STEPS_SHOWN ? path : path.concat(step);
}

/**
 * Throws a 400 naming the field (its first steps) when `value` nests arrays/objects deeper than
 * `limit`. Iterative, so it cannot itself overflow; linear in the number of containers.
 */
export function checkJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): void {
  const stack: Frame[] = [{ value, depth: 0, path: [] }];
  while (stack.length > 0) {
    const { value: node, depth, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) {
      throw deserializeError(render(path), `recursion limit exceeded: JSON nested deeper than ${limit} levels`);
    }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1, path: childPath(path, i) });
      }
    } else {
      for (const key in node as Record<string, unknown>) {
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1, path: childPath(path, key) });
      }
    }
  }
}

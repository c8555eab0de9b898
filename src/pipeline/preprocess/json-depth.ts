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
  /** How this container was reached, for the message only: built when a limit is hit. */
  parent: Frame | null;
  step: string | number;
}

/** The first steps of the path to `frame`, e.g. `logit_bias.5[0][0]…`. */
function pathOf(frame: Frame): string {
  const steps: (string | number)[] = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) steps.push(f.step);
  steps.reverse();
  let out = '';
  for (const step of steps.slice(0, PATH_STEPS_SHOWN)) {
    out += typeof step === 'number' ? `[${step}]` : out === '' ? step : `.${step}`;
  }
  return steps.length > PATH_STEPS_SHOWN ? `${out}…` : out;
}

/**
 * Throws a 400 naming the field (its first steps) when `value` nests arrays/objects deeper than
 * `limit`. Iterative, so it cannot itself overflow; linear in the number of containers.
 */
export function checkJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): void {
  const stack: Frame[] = [{ value, depth: 0, parent: null, step: '' }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const node = frame.value;
    if (frame.depth + 1 > limit) {
      throw deserializeError(pathOf(frame), `recursion limit exceeded: JSON nested deeper than ${limit} levels`);
    }
    const depth = frame.depth + 1;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth, parent: frame, step: i });
      }
    } else {
      for (const key in node as Record<string, unknown>) {
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth, parent: frame, step: key });
      }
    }
  }
}

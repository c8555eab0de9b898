// Drivers for tool-call parser tests: feed a text whole or one character at a time, check the items
// keep the interface's order (start, fragments, end), and fold them into what a client ends up with.

import assert from 'node:assert/strict';
import type {
  ToolCallParser,
  ToolCallParserFactory,
  ToolParseItem,
  ToolSpec,
} from '../../../../src/pipeline/postprocess/parsers/tool-call-parser.js';

/** A call as a client assembles it from the stream. */
export interface FoldedCall {
  id: string;
  name: string;
  arguments: string;
}

/** Content and calls in stream order. */
export type Folded = (string | FoldedCall)[];

export function pushAll(parser: ToolCallParser, pieces: readonly string[]): ToolParseItem[] {
  return [...pieces.flatMap((piece) => parser.push(piece)), ...parser.finish()];
}

/** Folds the items, asserting every call starts once, then gets fragments, then ends, in index order. */
export function fold(items: readonly ToolParseItem[]): Folded {
  const out: Folded = [];
  let open: FoldedCall | null = null;
  let index = -1;
  for (const item of items) {
    if (item.type === 'content') {
      assert.equal(open, null, 'content inside a call');
      const last = out[out.length - 1];
      if (typeof last === 'string') out[out.length - 1] = last + item.text;
      else out.push(item.text);
    } else if (item.type === 'call_start') {
      assert.equal(open, null, 'a call starts inside another');
      index += 1;
      assert.equal(item.index, index);
      open = { id: item.id, name: item.name, arguments: '' };
      out.push(open);
    } else {
      assert.ok(open !== null, `${item.type} outside a call`);
      assert.equal(item.index, index);
      if (item.type === 'call_arguments') open.arguments += item.fragment;
      else open = null;
    }
  }
  assert.equal(open, null, 'a call never ended');
  return out;
}

/** A parser from `factory` with ids call-1, call-2, … */
export function counted(factory: ToolCallParserFactory, tools: readonly ToolSpec[] = []): ToolCallParser {
  let n = 0;
  return factory({ tools, newCallId: () => `call-${++n}` });
}

/**
 * Asserts `text` gives `expected` pushed whole and one character at a time, and that every call's
 * arguments parse as JSON.
 */
export function assertParses(
  factory: ToolCallParserFactory,
  text: string,
  expected: Folded,
  tools: readonly ToolSpec[] = [],
): void {
  const whole = fold(pushAll(counted(factory, tools), [text]));
  assert.deepEqual(whole, expected, 'one push');
  const perCharacter = fold(pushAll(counted(factory, tools), Array.from(text)));
  assert.deepEqual(perCharacter, expected, 'one character per push');
  for (const item of expected) if (typeof item !== 'string') JSON.parse(item.arguments);
}

/** A call as `fold` gives it, with the n-th id of a counted parser; `args` as text is the JSON as written. */
export function call(n: number, name: string, args: unknown): FoldedCall {
  return { id: `call-${n}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

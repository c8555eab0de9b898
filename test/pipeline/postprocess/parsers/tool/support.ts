// Drivers for tool-call parser tests: run a parser over a text cut in every way and sum what a
// client sees, checking on the way that calls stream in order (start, arguments, end).

import assert from 'node:assert/strict';
import type { ToolCallParser, ToolCallParserFactory, ToolParseItem } from '../../../../../src/pipeline/postprocess/index.js';
import { cuttings } from '../support.js';

/** What a client ends up with, in order: content runs and whole calls. */
export type Seen = ({ content: string } | { id: string; name: string; arguments: string })[];

export interface ToolCase {
  tools?: { name: string; parameters?: Record<string, unknown> }[];
}

/** A fresh parser from `make` with ids call-1, call-2, … */
export function counted(make: ToolCallParserFactory, tools: ToolCase['tools'] = []): ToolCallParser {
  let counter = 0;
  return make({ tools, newCallId: () => `call-${++counter}` });
}

/** Feeds `pieces` to a fresh parser (ids call-1, call-2, …) and sums its items. */
export function run(make: ToolCallParserFactory, pieces: readonly string[], options: ToolCase = {}): Seen {
  const parser = counted(make, options.tools);
  const items: ToolParseItem[] = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.finish()];
  const seen: Seen = [];
  let open = null as { index: number; call: { id: string; name: string; arguments: string } } | null;
  let calls = 0;
  for (const item of items) {
    if (item.type === 'content') {
      assert.equal(open, null, 'content inside a call');
      const last = seen[seen.length - 1];
      if (last !== undefined && 'content' in last) last.content += item.text;
      else seen.push({ content: item.text });
    } else if (item.type === 'call_start') {
      assert.equal(open, null, 'a call starts inside another');
      assert.equal(item.index, calls, 'calls are numbered from 0 in order');
      open = { index: item.index, call: { id: item.id, name: item.name, arguments: '' } };
      seen.push(open.call);
    } else {
      assert.equal(open?.index, item.index, `${item.type} of a call that is not open`);
      if (item.type === 'call_arguments') open!.call.arguments += item.fragment;
      else {
        open = null;
        calls += 1;
      }
    }
  }
  assert.equal(open, null, 'a call was left open');
  return seen;
}

/** Every cutting of `text` (whole, per character, in two at every position) gives `expected`. */
export function assertToolParse(make: ToolCallParserFactory, text: string, expected: Seen, options?: ToolCase): void {
  for (const { name, pieces } of cuttings(text)) {
    assert.deepEqual(run(make, pieces, options), expected, `${name}: ${JSON.stringify(pieces)}`);
  }
}

/** A call as the client sees it, ids from the test counter. */
export function call(n: number, name: string, args: string): { id: string; name: string; arguments: string } {
  return { id: `call-${n}`, name, arguments: args };
}

/** A call whose arguments the parser builds from named parameters: `args` as compact JSON. */
export function builtCall(n: number, name: string, args: unknown): { id: string; name: string; arguments: string } {
  return call(n, name, JSON.stringify(args));
}

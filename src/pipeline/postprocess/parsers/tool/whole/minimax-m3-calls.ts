// MiniMax-M3's tool calls: XML whose every tag is preceded by the namespace token `]<]minimax[>[`,
// with each parameter named by its own tag (values typed by the tool's schema, nested tags for
// objects and `<item>` arrays: minimax-m3-values.ts):
//
//   ]<]minimax[>[<tool_call>
//   ]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>]<]minimax[>[</invoke>
//   ]<]minimax[>[</tool_call>
//
// As upstream: a call is released once its invoke closes; text inside the block that is not a
// complete invoke is dropped; an invoke written without the block is a call too; a block or invoke
// the stream cuts off keeps the calls completed before and drops the rest.

import type { ToolCallParserFactory, ToolSpec, WholeCall } from '../parser.js';
import { partialMarkerLength } from '../../marker-scan.js';
import { minimaxParameters } from './minimax-m3-values.js';
import { wholeCallsParser, type RunRead } from './whole-calls.js';

const MINIMAX_M3_NAMESPACE = ']<]minimax[>[';
const BLOCK_OPEN = `${MINIMAX_M3_NAMESPACE}<tool_call>`;
const BLOCK_CLOSE = `${MINIMAX_M3_NAMESPACE}</tool_call>`;
const INVOKE_OPEN = `${MINIMAX_M3_NAMESPACE}<invoke`;
const INVOKE_CLOSE = `${MINIMAX_M3_NAMESPACE}</invoke>`;

/** `name="f"`, `name='f'` or `name=f` in an invoke's attributes. */
const INVOKE_NAME = /^\s*name\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))/;

/** One complete invoke at `at` (its opener included), or null while it is incomplete. */
function readInvoke(text: string, at: number, tools: readonly ToolSpec[]): { call: WholeCall | null; end: number } | null {
  const attrsStart = at + INVOKE_OPEN.length;
  const tagEnd = text.indexOf('>', attrsStart);
  if (tagEnd < 0) return null;
  const close = text.indexOf(INVOKE_CLOSE, tagEnd + 1);
  if (close < 0) return null;
  const match = INVOKE_NAME.exec(text.slice(attrsStart, tagEnd));
  const name = (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
  const end = close + INVOKE_CLOSE.length;
  if (name === '') return { call: null, end };
  const parameters = tools.find((tool) => tool.name === name)?.parameters;
  return { call: { name, arguments: JSON.stringify(minimaxParameters(text.slice(tagEnd + 1, close), parameters)) }, end };
}

function readRun(opener: string, text: string, tools: readonly ToolSpec[]): RunRead {
  if (opener === INVOKE_OPEN) {
    // A bare invoke: the run is the invoke itself.
    const invoke = readInvoke(opener + text, 0, tools);
    if (invoke === null) return { calls: [], used: 0, ended: false };
    return { calls: invoke.call ? [invoke.call] : [], used: invoke.end - opener.length, ended: true };
  }
  const calls: WholeCall[] = [];
  let at = 0;
  for (;;) {
    const invoke = text.indexOf(INVOKE_OPEN, at);
    const close = text.indexOf(BLOCK_CLOSE, at);
    if (close >= 0 && (invoke < 0 || close < invoke)) return { calls, used: close + BLOCK_CLOSE.length, ended: true };
    if (invoke < 0) {
      // Junk between invokes is dropped, but for a tail that could still begin a marker.
      return { calls, used: text.length - partialMarkerLength(text.slice(at), [INVOKE_OPEN, BLOCK_CLOSE]), ended: false };
    }
    const read = readInvoke(text, invoke, tools);
    if (read === null) return { calls, used: invoke, ended: false };
    if (read.call) calls.push(read.call);
    at = read.end;
  }
}

export const minimaxM3ToolCallParser: ToolCallParserFactory = wholeCallsParser({
  opens: [BLOCK_OPEN, INVOKE_OPEN],
  read: readRun,
  unterminated: 'drop',
});

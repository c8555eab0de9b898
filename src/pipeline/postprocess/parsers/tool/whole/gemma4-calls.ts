// Gemma 4's tool calls: `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>`,
// several written back to back. The arguments are Gemma's own literal grammar (gemma4-literal.ts).
// As upstream: the first `<tool_call|>` ends a call (strings are not scanned for it); a call whose
// header is not `call:name{…}` is dropped, arguments that do not parse become `{}`, and a call the
// stream cuts off before `<tool_call|>` is released as the text it was.

import { gemmaArguments } from './gemma4-literal.js';
import type { ToolCallParserFactory } from '../parser.js';
import { wholeCallsParser, type RunRead } from './whole-calls.js';

const END = '<tool_call|>';
const HEADER = /^call:([\p{L}\p{N}_.-]+)\{([\s\S]*)\}$/u;

function readCall(_opener: string, text: string): RunRead {
  const end = text.indexOf(END);
  if (end < 0) return { calls: [], used: 0, ended: false };
  const header = HEADER.exec(text.slice(0, end));
  const calls = header === null ? [] : [{ name: header[1] ?? '', arguments: gemmaArguments(header[2] ?? '') ?? '{}' }];
  return { calls, used: end + END.length, ended: true };
}

export const gemma4ToolCallParser: ToolCallParserFactory = wholeCallsParser({
  opens: ['<|tool_call>'],
  read: readCall,
  unterminated: 'content',
});

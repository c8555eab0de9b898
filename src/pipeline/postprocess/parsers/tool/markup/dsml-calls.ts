// DeepSeek's markup language (DSML) for tool calls, V3.2 and V4: a block of invokes, one parameter
// tag each, where `string="true"` says the value is text and anything else says it is JSON (read
// as text when it is not), whatever the tool's schema says, as upstream's DSML parser reads it.
//
//   <｜DSML｜tool_calls>
//   <｜DSML｜invoke name="get_weather">
//   <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
//   </｜DSML｜invoke>
//   </｜DSML｜tool_calls>
//
// V3.2 names the block `function_calls`, V4 `tool_calls`; nothing else differs. As upstream, the
// markup never reaches the text: a block or invoke that is not a call is dropped, and so is an
// invoke the stream cuts off (each call is released once its invoke closes).

import { closedCallsOnly } from './closed-calls.js';
import { markupToolParser } from './markup-parser.js';
import type { ParameterKey } from './markup-format.js';
import type { ToolCallParserFactory } from '../parser.js';

const INVOKE = '<｜DSML｜invoke name=';
/** The encoders write the block after the text and a blank line: that line belongs to the block. */
const BLOCK_SEPARATOR = '\n\n';

const QUOTED_NAME = /^\s*"([^"]*)"(?:\s+string="(true|false)")?\s*$/;

/** `"city" string="true"`: the parameter's name and how its value reads. */
function dsmlKey(raw: string): ParameterKey {
  const match = QUOTED_NAME.exec(raw);
  if (match === null) return { key: raw.trim().replace(/^"(.*)"$/, '$1'), as: 'json' };
  return { key: match[1] ?? '', as: match[2] === 'true' ? 'text' : 'json' };
}

function dsmlToolCallParser(block: string): ToolCallParserFactory {
  const start = `<｜DSML｜${block}>`;
  return closedCallsOnly(markupToolParser({
    section: { starts: [BLOCK_SEPARATOR + start, start], ends: [`</｜DSML｜${block}>`] },
    // An invoke the model writes without its block is a call too, as upstream recovers it.
    bareCalls: true,
    callStarts: [INVOKE],
    nameEnds: ['>'],
    cleanName: (raw) => raw.trim().replace(/^"(.*)"$/, '$1'),
    argumentsStart: '>',
    arguments: {
      kind: 'parameters',
      start: '<｜DSML｜parameter name=',
      keyEnd: '>',
      valueEnd: '</｜DSML｜parameter>',
      untyped: 'json',
      readKey: dsmlKey,
      trimValues: true,
    },
    callEnd: '</｜DSML｜invoke>',
    dropsMalformed: true,
  }));
}

export const deepseekV32ToolCallParser = dsmlToolCallParser('function_calls');
export const deepseekV4ToolCallParser = dsmlToolCallParser('tool_calls');

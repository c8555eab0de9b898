// Formats whose calls are XML-like tags with one tag per parameter: the engine builds the arguments
// object from the parameters (reference/http.md §8.1; markers as upstream's lib/parsers).

import { markupToolParser } from './markup-parser.js';

/**
 * `<tool_call><function=name><parameter=k>v</parameter></function></tool_call>`, values typed by
 * schema; a `<function=…>` without the wrapper is a call too, as upstream's back-off reads it.
 */
export const qwen3CoderToolCallParser = markupToolParser({
  section: { starts: ['<tool_call>'], ends: ['</tool_call>'] },
  bareCalls: true,
  callStarts: ['<function='],
  nameEnds: ['>'],
  argumentsStart: '>',
  arguments: { kind: 'parameters', start: '<parameter=', keyEnd: '>', valueEnd: '</parameter>', untyped: 'text' },
  callEnd: '</function>',
});

/**
 * `<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>…</tool_call>`, values typed by schema
 * (objects, arrays and strings written as JSON are read as such, an `array` otherwise split on
 * commas). As upstream, a call to a function the request's tools do not name is content.
 */
export const glm47ToolCallParser = markupToolParser({
  callStarts: ['<tool_call>'],
  knownNamesOnly: true,
  nameEnds: ['<arg_key>', '</tool_call>'],
  arguments: {
    kind: 'parameters',
    start: '<arg_key>',
    keyEnd: '</arg_key>',
    valueStart: '<arg_value>',
    valueEnd: '</arg_value>',
    untyped: 'json',
    commaArrays: true,
    xmlEntities: true,
  },
  callEnd: '</tool_call>',
});

/**
 * `<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke></minimax:tool_call>`;
 * an `<invoke …>` without the wrapper is a call too, as upstream's back-off reads it.
 */
export const minimaxM2ToolCallParser = markupToolParser({
  section: { starts: ['<minimax:tool_call>'], ends: ['</minimax:tool_call>'] },
  bareCalls: true,
  callStarts: ['<invoke name='],
  nameEnds: ['>'],
  cleanName: (raw) => raw.trim().replace(/^"(.*)"$/, '$1'),
  argumentsStart: '>',
  arguments: { kind: 'parameters', start: '<parameter name=', keyEnd: '>', valueEnd: '</parameter>', untyped: 'text' },
  callEnd: '</invoke>',
});

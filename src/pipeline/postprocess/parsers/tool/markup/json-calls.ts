// Formats whose calls carry their arguments as raw JSON between markers: the JSON streams as the
// model writes it (reference/http.md §8.1; markers as upstream's lib/parsers).

import { markupToolParser } from './markup-parser.js';

/** `<|tool_calls_section_begin|><|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}<|tool_call_end|>…`. */
export const kimiK2ToolCallParser = markupToolParser({
  // The model writes the section markers singular at times (upstream accepts both).
  section: {
    starts: ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'],
    ends: ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'],
  },
  callStarts: ['<|tool_call_begin|>'],
  nameEnds: ['<|tool_call_argument_begin|>'],
  // `functions.get_weather:0` names get_weather (the suffix counts the calls).
  cleanName: (raw) => raw.trim().replace(/^functions\./, '').replace(/:\d+$/, ''),
  argumentsStart: '<|tool_call_argument_begin|>',
  arguments: { kind: 'json' },
  callEnd: '<|tool_call_end|>',
});

const DEEPSEEK_SECTION = { starts: ['<｜tool▁calls▁begin｜>'], ends: ['<｜tool▁calls▁end｜>'] };
const DEEPSEEK_SEP = '<｜tool▁sep｜>';

/** `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n```json\n{…}\n```<｜tool▁call▁end｜>…`. */
export const deepseekV3ToolCallParser = markupToolParser({
  section: DEEPSEEK_SECTION,
  callStarts: ['<｜tool▁call▁begin｜>'],
  nameEnds: ['\n', '```'],
  // The call's type (`function`) comes before the separator; the name after it.
  cleanName: (raw) => (raw.split(DEEPSEEK_SEP).pop() ?? '').trim(),
  argumentsStart: '```json',
  arguments: { kind: 'json' },
  callEnd: '<｜tool▁call▁end｜>',
});

/** `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…`. */
export const deepseekV31ToolCallParser = markupToolParser({
  section: DEEPSEEK_SECTION,
  callStarts: ['<｜tool▁call▁begin｜>'],
  nameEnds: [DEEPSEEK_SEP],
  argumentsStart: DEEPSEEK_SEP,
  arguments: { kind: 'json' },
  callEnd: '<｜tool▁call▁end｜>',
});

/**
 * gpt-oss: `<|channel|>commentary to=functions.name <|constrain|>json<|message|>{…}<|call|>`. The
 * reasoning stage passes commentary messages on whole, so the message may open with
 * `<|start|>assistant`, and the recipient may come before the channel instead of after it.
 */
export const harmonyToolCallParser = markupToolParser({
  callStarts: [
    '<|channel|>commentary to=functions.',
    '<|start|>assistant<|channel|>commentary to=functions.',
    '<|start|>assistant to=functions.',
  ],
  nameEnds: [' ', '<|channel|>', '<|constrain|>', '<|message|>'],
  argumentsStart: '<|message|>',
  arguments: { kind: 'json' },
  callEnd: '<|call|>',
});

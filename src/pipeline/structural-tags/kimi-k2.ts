// Kimi K2's structural tag: its special-token section of calls, each `functions.NAME:N` (the call
// number left to the model) and the arguments as JSON:
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>

import { callSequence, triggeredCalls, type StructuralTagBuilder } from './builders.js';
import { tag, type Format, type TagFormat } from './formats.js';
import { argumentsSchema, type TagRequest } from './request.js';

const SECTION_BEGIN = '<|tool_calls_section_begin|>';
const SECTION_END = '<|tool_calls_section_end|>';
const CALL_BEGIN = '<|tool_call_begin|>functions.';
const ARGUMENT_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';

function callTags(request: TagRequest): TagFormat[] {
  return request.tools.map((tool) =>
    tag(
      `${CALL_BEGIN}${tool.function.name}:`,
      {
        type: 'sequence',
        elements: [
          { type: 'regex', pattern: '\\d+' },
          { type: 'const_string', value: ARGUMENT_BEGIN },
          { type: 'json_schema', json_schema: argumentsSchema(tool, request.schema), style: 'json' },
        ],
      },
      CALL_END,
    ),
  );
}

const section = (request: TagRequest): TagFormat => tag(SECTION_BEGIN, callSequence(callTags(request), '', request), SECTION_END);

export const kimiK2Section: StructuralTagBuilder = {
  banTokens: [],
  reasoningEnd: '</think>',
  build: (request) => {
    if (request.tools.length === 0) return null;
    if (!request.atLeastOne) return triggeredCalls([SECTION_BEGIN], [section(request)], request);
    const calls = callTags(request);
    const inner: Format = request.named ? calls[0]! : callSequence(calls, '', request);
    return { type: 'sequence', elements: [{ type: 'const_string', value: SECTION_BEGIN }, inner, { type: 'const_string', value: SECTION_END }] };
  },
  parsersV2: {
    callsOnly: (request) => (request.tools.length === 0 ? null : section(request)),
    // Every marker but the section's opening, which triggers the calls.
    textExcludes: ['<think>', '</think>', SECTION_END, CALL_END, CALL_BEGIN, ARGUMENT_BEGIN],
    reasoningExcludes: [SECTION_BEGIN, CALL_BEGIN],
    reasoningSuffix: '',
  },
};

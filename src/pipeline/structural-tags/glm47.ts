// GLM-4.7's structural tag (GLM-5 writes the same): a call is the tool's name after `<tool_call>`,
// then its arguments as key and value pairs:
//   <tool_call>f<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>
// Its free text keeps every call marker out but the opening (the trigger) and both reasoning
// markers, so a span the prompt opened is closed first whatever the tool choice.

import { callSequence, triggeredCalls, type StructuralTagBuilder } from './builders.js';
import { tag, type Format, type TagFormat } from './formats.js';
import { glmArgumentsSchema } from './glm-schema.js';
import { argumentsSchema, type TagRequest } from './request.js';

const CALL_BEGIN = '<tool_call>';
const CALL_END = '</tool_call>';
const ARGUMENT_MARKERS = ['<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'];
const REASONING = ['<think>', '</think>'];
const CALL_MARKERS = [CALL_BEGIN, CALL_END, ...ARGUMENT_MARKERS];
/** Every marker but the call opening, which triggers a call. */
const FREE_TEXT_EXCLUDES = [...REASONING, CALL_END, ...ARGUMENT_MARKERS];

/** A tag per tool; null when a tool's schema cannot be carried whole (see glm-schema.ts). */
function callTags(request: TagRequest): TagFormat[] | null {
  const tags: TagFormat[] = [];
  for (const tool of request.tools) {
    const schema = glmArgumentsSchema(argumentsSchema(tool, request.schema));
    if (schema === null) return null;
    tags.push(tag(`${CALL_BEGIN}${tool.function.name}`, { type: 'json_schema', json_schema: schema, style: 'glm_xml' }, CALL_END));
  }
  return tags;
}

export const glm47Calls: StructuralTagBuilder = {
  banTokens: CALL_MARKERS,
  reasoningEnd: '</think>',
  reasoningSpan: { excludes: [...REASONING, ...CALL_MARKERS] },
  build: (request) => {
    const tags = request.tools.length === 0 ? null : callTags(request);
    if (tags === null) return null;
    // A named call is the whole reply: the grammar ends with it.
    if (request.named) return tags[0]!;
    return triggeredCalls([CALL_BEGIN], tags, { ...request, textExcludes: request.textExcludes ?? FREE_TEXT_EXCLUDES });
  },
  parsersV2: {
    callsOnly: (request): Format | null => {
      const tags = request.tools.length === 0 ? null : callTags(request);
      return tags === null ? null : callSequence(tags, '', request);
    },
    textExcludes: FREE_TEXT_EXCLUDES,
    reasoningExcludes: CALL_MARKERS,
    reasoningSuffix: '',
  },
};

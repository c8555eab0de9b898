// Which tool-call parser a request's choices get (reference/http.md §8.3 point 2): the one the
// model's card names, only when the request offers tools and did not set `tool_choice: "none"`.

import type { ChatCompletionRequest, ToolCallParserName } from '../../../protocols/index.js';
import type { ToolCallParser, ToolSpec } from './tool-call-parser.js';
import { TOOL_CALL_PARSERS } from './tool-call-registry.js';

/** Makes one parser per choice; undefined when the request gets none (the fold then does no work). */
export type ChoiceToolCalls = () => ToolCallParser;

export type ToolRequest = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls'>;

export function toolCallsFor(name: ToolCallParserName | null, request: ToolRequest): ChoiceToolCalls | undefined {
  const tools = toolSpecs(request);
  if (name === null || tools.length === 0 || request.tool_choice === 'none') return undefined;
  const factory = TOOL_CALL_PARSERS[name];
  return () => factory({ tools });
}

function toolSpecs(request: ToolRequest): ToolSpec[] {
  return (request.tools ?? []).map(({ function: fn }) => (fn.parameters ? { name: fn.name, parameters: fn.parameters } : { name: fn.name }));
}

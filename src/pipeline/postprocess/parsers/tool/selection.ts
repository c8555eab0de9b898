// Which tool-call parser a request's choices get (reference/http.md §8.3): none when the request
// offers no tools or sets `tool_choice: "none"`; for `required` or a named function, the parser of
// the guided JSON the engine was told to write (no card parser needed), unless the engine was given
// the card parser's own grammar (a structural tag); otherwise the one the model's card names.
// `parallel_tool_calls: false` keeps only the first call, as upstream.

import type { ChatCompletionRequest, ToolCallParserName } from '../../../../protocols/index.js';
import type { ToolCallParser, ToolCallParserFactory, ToolParseItem, ToolSpec } from './parser.js';
import { TOOL_CALL_PARSERS } from './registry.js';
import { namedToolCallParser, requiredToolCallParser } from './json/index.js';

/** Makes one parser per choice; undefined when the request gets none (the fold then does no work). */
export type ChoiceToolCalls = () => ToolCallParser;

export type ToolRequest = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls'>;

/** `native`: the engine writes the card parser's own format whatever the tool choice (a structural tag). */
export function toolCallsFor(name: ToolCallParserName | null, request: ToolRequest, native = false): ChoiceToolCalls | undefined {
  const tools = toolSpecs(request);
  const factory = tools.length === 0 ? undefined : parserFor(name, request, native);
  if (factory === undefined) return undefined;
  if (request.parallel_tool_calls === false) return () => new FirstCallOnly(factory({ tools }));
  return () => factory({ tools });
}

function parserFor(name: ToolCallParserName | null, { tool_choice: choice }: ToolRequest, native: boolean): ToolCallParserFactory | undefined {
  if (choice === 'none') return undefined;
  if (native && name !== null) return TOOL_CALL_PARSERS[name];
  if (choice === 'required') return requiredToolCallParser;
  if (typeof choice === 'object' && choice !== null) return namedToolCallParser(choice.function.name);
  return name === null ? undefined : TOOL_CALL_PARSERS[name];
}

function toolSpecs(request: ToolRequest): ToolSpec[] {
  return (request.tools ?? []).map(({ function: fn }) => (fn.parameters ? { name: fn.name, parameters: fn.parameters } : { name: fn.name }));
}

/** Drops every call after the first (their text included); content around them passes. */
class FirstCallOnly implements ToolCallParser {
  constructor(private readonly inner: ToolCallParser) {}

  push(text: string): ToolParseItem[] {
    return this.inner.push(text).filter(isKept);
  }

  finish(): ToolParseItem[] {
    return this.inner.finish().filter(isKept);
  }
}

const isKept = (item: ToolParseItem): boolean => item.type === 'content' || item.index === 0;

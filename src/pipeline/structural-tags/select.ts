// Whether a chat request gets a structural tag, and which, as upstream's frontend decides it from
// the model's card: the tool-call parser's builder, the card's scope and schema, the request's tool
// choice. A tag for a tool call means the output is in the parser's own format (the card's parser
// reads it, not the guided-JSON one); a tag for `tool_choice: "none"` only bans opening a call.

import { DEFAULT_STRUCTURAL_TAG_OPTIONS, type ChatCompletionRequest, type ResponseFormat, type ToolCallParserName, type StructuralTagOptions, type StructuralTagPolicy, type StructuralTagSchema } from '../../protocols/index.js';
import type { ParsersV2Forms, StructuralTagBuilder } from './builders.js';
import { structuralTag, tag, withAnyOrderArguments, type Format, type StructuralTag } from './formats.js';
import { STRUCTURAL_TAG_BUILDERS } from './registry.js';

/** What the model's card says of its tool calls, for the preprocessor. */
export interface ToolCallFormat {
  toolCall: ToolCallParserName | null;
  /** The card's structural-tag settings; null: off. */
  structuralTag: StructuralTagPolicy | null;
  /** The parsers-v2 options of those settings; upstream's defaults when absent. */
  structuralTagOptions?: StructuralTagOptions;
}

export interface ToolCallTag {
  tag: StructuralTag;
  /** The grammar is the tool-call parser's own format: the output is parsed with it. */
  native: boolean;
}

type TagRequestFields = Pick<ChatCompletionRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'response_format'>;

export interface TagContext {
  /** The chat template left tools out of the prompt for `tool_choice: "none"`. */
  toolsLeftOutForNone: boolean;
  /** The reply starts inside a reasoning span the prompt opened: a forced call's grammar lets it run first. */
  startsInReasoning: boolean;
}

/**
 * Kimi's forced calls take their tag even with structural tags off, as upstream treats them: K2's
 * section and K3's XTML channels are not the JSON of generic guided decoding. K2: `required` and
 * named choices; K3: named choices only (upstream leaves K3's `required` to its prompt and parser).
 */
const FORCED_NEEDS_TAG: Readonly<Partial<Record<ToolCallParserName, 'forced' | 'named'>>> = { kimi_k2: 'forced', kimi_k3: 'named', 'kimi-k3': 'named' };
const forcedNeedsTag = (parser: ToolCallParserName | null, named: boolean): boolean => {
  const needs = parser === null ? undefined : FORCED_NEEDS_TAG[parser];
  return needs === 'forced' || (needs === 'named' && named);
};

export function toolCallTag(request: TagRequestFields, format: ToolCallFormat, context: TagContext): ToolCallTag | null {
  const choice = request.tool_choice ?? 'auto';
  const named = typeof choice === 'object' && choice !== null;
  const forced = named || choice === 'required';
  const policy = format.structuralTag;
  if (policy === null && !(forced && forcedNeedsTag(format.toolCall, named))) return null;
  const options = format.structuralTagOptions ?? DEFAULT_STRUCTURAL_TAG_OPTIONS;
  const tools = request.tools ?? [];
  // A response format constrains the answer itself: an automatic choice keeps it (or, where the
  // card allows, gets a tag of either the calls or that answer), a forced one wins.
  const responseSchema = structuredOutputSchema(request.response_format);
  if (responseSchema !== null && !forced) {
    const allowed = policy !== null && options.toolCallsWithStructuredOutput === true && choice === 'auto' && tools.length > 0;
    return allowed ? callsOrResponse(request, format.toolCall, policy.schema, responseSchema, options, context) : null;
  }
  const builder = format.toolCall === null ? undefined : STRUCTURAL_TAG_BUILDERS[format.toolCall];
  if (builder === undefined) return null;
  if (choice === 'none') {
    // With the tools left out of the prompt, the ban adds nothing.
    if (context.toolsLeftOutForNone || tools.length === 0 || builder.banTokens.length === 0) return null;
    return { tag: structuralTag(tag('', { type: 'any_tokens', exclude_tokens: [...builder.banTokens] }, '')), native: false };
  }
  const scope = policy?.scope ?? 'auto';
  const eligible = forced || scope === 'always' || request.parallel_tool_calls === false || tools.some((tool) => tool.function.strict === true);
  if (!eligible) return null;
  const selected = named ? tools.filter((tool) => tool.function.name === choice.function.name) : tools;
  const textExcludes = excludedMarkers(builder, options)?.textExcludes;
  const grammar = builder.build({
    tools: selected,
    atLeastOne: forced,
    named,
    stopAfterFirst: request.parallel_tool_calls === false,
    schema: policy?.schema ?? 'auto',
    ...(textExcludes === undefined ? {} : { textExcludes }),
  });
  if (grammar === null) return null;
  const calls = options.toolArgumentsAnyOrder ? withAnyOrderArguments(grammar) : grammar;
  const reasoningFirst = forced || builder.reasoningSpan !== undefined;
  return { tag: structuralTag(reasoningFirst ? afterReasoning(calls, builder, options, context, '') : calls), native: true };
}

/** The family's parsers-v2 marker lists when the card asks for them to be kept out; undefined: none. */
function excludedMarkers(builder: StructuralTagBuilder, options: StructuralTagOptions): ParsersV2Forms | undefined {
  return options.excludeSpecialTokens === true ? builder.parsersV2 : undefined;
}

/** The schema a `response_format` constrains the answer to; null: free text. */
function structuredOutputSchema(responseFormat: ResponseFormat | null | undefined): unknown {
  if (responseFormat == null || responseFormat.type === 'text') return null;
  return responseFormat.type === 'json_schema' ? responseFormat.json_schema.schema : { type: 'object' };
}

/**
 * Upstream's parsers-v2 tag for an automatic choice beside a response format: the output is either
 * the calls alone or the answer in the response's schema (whose properties keep their order), in
 * the family's own forms.
 */
function callsOrResponse(
  request: TagRequestFields,
  parser: ToolCallParserName | null,
  schema: StructuralTagSchema,
  responseSchema: unknown,
  options: StructuralTagOptions,
  context: TagContext,
): ToolCallTag | null {
  const builder = parser === null ? undefined : STRUCTURAL_TAG_BUILDERS[parser];
  const forms = builder?.parsersV2;
  const grammar = forms?.callsOnly({ tools: request.tools ?? [], atLeastOne: true, named: false, stopAfterFirst: request.parallel_tool_calls === false, schema });
  if (builder === undefined || forms === undefined || grammar == null) return null;
  const calls = options.toolArgumentsAnyOrder ? withAnyOrderArguments(grammar) : grammar;
  const answer: Format = forms.response?.(responseSchema) ?? { type: 'json_schema', json_schema: responseSchema, style: 'json' };
  const either: Format = { type: 'or', elements: [calls, answer] };
  return { tag: structuralTag(afterReasoning(either, builder, options, context, forms.reasoningSuffix)), native: true };
}

/**
 * A grammar whose first bytes are constrained lets a reasoning span the prompt opened run first,
 * up to the builder's end marker, then `suffix` (the family's fixed text there; empty: none); with
 * the boundary at the backend, the engine does that itself.
 */
function afterReasoning(grammar: Format, builder: StructuralTagBuilder, options: StructuralTagOptions, context: TagContext, suffix: string): Format {
  if (!context.startsInReasoning || options.reasoningBoundary === 'backend') return grammar;
  const excludes = [...(excludedMarkers(builder, options)?.reasoningExcludes ?? builder.reasoningSpan?.excludes ?? [])];
  const reasoning = tag('', { type: 'any_text', excludes }, builder.reasoningEnd);
  const between: Format[] = suffix === '' ? [] : [{ type: 'const_string', value: suffix }];
  return { type: 'sequence', elements: [reasoning, ...between, grammar] };
}

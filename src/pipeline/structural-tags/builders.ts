// The structural-tag builders by format, as upstream's parsers define them: each says the grammar
// of its model's tool calls (begin and end strings around each tool's arguments), the strings that
// would begin a call (banned for `tool_choice: "none"`), and where the model's reasoning ends.

import { tag, type Format, type JsonSchemaStyle, type TagFormat } from './formats.js';
import { argumentsSchema, type TagRequest } from './request.js';

export interface StructuralTagBuilder {
  /** The tool-call grammar for the request's tools; null when there is nothing to constrain. */
  build(request: TagRequest): Format | null;
  /** Banned for `tool_choice: "none"`, so the model cannot open a call; none: no ban. */
  readonly banTokens: readonly string[];
  /** Ends a reasoning span the prompt opened, which a forced call's grammar lets run first. */
  readonly reasoningEnd: string;
  /**
   * The calls alone (the output opens with a call and ends after the last): the tool branch beside
   * a response schema. Absent: the family has no such form here, and that request gets no tag.
   */
  callsOnly?(request: TagRequest): Format | null;
  /**
   * The markers `exclude_special_tokens` keeps out of free text: `text` between the calls (the
   * reasoning markers and the family's own), `reasoning` in a reasoning span the tag lets run (the
   * call openings). Absent: the family has no such list here, and the option changes nothing.
   */
  readonly specialTokens?: { readonly text: readonly string[]; readonly reasoning: readonly string[] };
}

const NAME = '{name}';

interface TriggeredTagsSpec {
  begin: string;
  end: string;
  triggers: string[];
  style: JsonSchemaStyle;
  banTokens: string[];
  /** Between two calls when the output is the calls alone; absent: no calls-only form (upstream's parsers-v2 families have one). */
  separator?: string;
  specialTokens?: StructuralTagBuilder['specialTokens'];
}

/** A tag per tool, reached from free text by a trigger: hermes' JSON and Qwen3-Coder's XML. */
export function triggeredTags(spec: TriggeredTagsSpec): StructuralTagBuilder {
  const toolTags = (request: TagRequest): TagFormat[] =>
    request.tools.map((tool) => {
      const schema = argumentsSchema(tool, request.schema);
      // An object that can only be `{}` is no parameters at all in the XML styles (older xgrammar refuses its schema).
      const content: Format = spec.style === 'qwen_xml' && isClosedEmptyObject(schema) ? { type: 'const_string', value: '' } : { type: 'json_schema', json_schema: schema, style: spec.style };
      return tag(spec.begin.replace(NAME, tool.function.name), content, spec.end);
    });
  const separator = spec.separator;
  return {
    banTokens: spec.banTokens,
    reasoningEnd: '</think>',
    ...(spec.specialTokens === undefined ? {} : { specialTokens: spec.specialTokens }),
    build: (request) => {
      if (request.tools.length === 0) return null;
      return { type: 'triggered_tags', triggers: spec.triggers, tags: toolTags(request), at_least_one: request.atLeastOne, stop_after_first: request.stopAfterFirst };
    },
    ...(separator === undefined
      ? {}
      : {
          callsOnly: (request: TagRequest): Format | null =>
            request.tools.length === 0 ? null : { type: 'tags_with_separator', tags: toolTags(request), separator, at_least_one: true, stop_after_first: request.stopAfterFirst },
        }),
  };
}

function isClosedEmptyObject(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  const s = schema as Record<string, unknown>;
  const properties = s.properties;
  const required = s.required;
  return (
    s.type === 'object' &&
    typeof properties === 'object' && properties !== null && Object.keys(properties).length === 0 &&
    s.additionalProperties === false &&
    (required === undefined || (Array.isArray(required) && required.length === 0)) &&
    Object.keys(s).every((key) => ['type', 'properties', 'required', 'additionalProperties'].includes(key))
  );
}

/** DeepSeek's DSML: a block (opened by its trigger) of invokes, one per call. */
export function dsmlBlock(block: string): StructuralTagBuilder {
  const start = `<｜DSML｜${block}>`;
  return {
    // The block's opening is several tokens: the DSML bar token is what can be banned.
    banTokens: ['｜DSML｜'],
    reasoningEnd: '</think>',
    build: (request) => {
      if (request.tools.length === 0) return null;
      const invokes = request.tools.map((tool) =>
        tag(`<｜DSML｜invoke name="${tool.function.name}">\n`, { type: 'json_schema', json_schema: argumentsSchema(tool, request.schema), style: 'deepseek_xml' }, '</｜DSML｜invoke>\n'),
      );
      const inner: Format = { type: 'tags_with_separator', tags: invokes, separator: '', at_least_one: true, stop_after_first: request.stopAfterFirst };
      return { type: 'triggered_tags', triggers: [start], tags: [tag(`${start}\n`, inner, `</｜DSML｜${block}>`)], at_least_one: request.atLeastOne, stop_after_first: request.stopAfterFirst };
    },
  };
}

const K2_SECTION_BEGIN = '<|tool_calls_section_begin|>';
const K2_SECTION_END = '<|tool_calls_section_end|>';

/** Kimi K2's special-token section: `functions.NAME:N` ids, the number left to the model. */
export const kimiK2Section: StructuralTagBuilder = {
  banTokens: [],
  reasoningEnd: '</think>',
  build: (request) => {
    if (request.tools.length === 0) return null;
    const calls: TagFormat[] = request.tools.map((tool) =>
      tag(
        `<|tool_call_begin|>functions.${tool.function.name}:`,
        {
          type: 'sequence',
          elements: [
            { type: 'regex', pattern: '\\d+' },
            { type: 'const_string', value: '<|tool_call_argument_begin|>' },
            { type: 'json_schema', json_schema: argumentsSchema(tool, request.schema), style: 'json' },
          ],
        },
        '<|tool_call_end|>',
      ),
    );
    const inner: Format = request.named ? calls[0]! : { type: 'tags_with_separator', tags: calls, separator: '', at_least_one: true, stop_after_first: request.stopAfterFirst };
    if (!request.atLeastOne) {
      return { type: 'triggered_tags', triggers: [K2_SECTION_BEGIN], tags: [tag(K2_SECTION_BEGIN, inner, K2_SECTION_END)], at_least_one: false, stop_after_first: request.stopAfterFirst };
    }
    return { type: 'sequence', elements: [{ type: 'const_string', value: K2_SECTION_BEGIN }, inner, { type: 'const_string', value: K2_SECTION_END }] };
  },
};

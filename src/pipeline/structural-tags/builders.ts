// The structural-tag builders by format, as upstream's parsers define them: each says the grammar
// of its model's tool calls (begin and end strings around each tool's arguments), the strings that
// would begin a call (banned for `tool_choice: "none"`), where the model's reasoning ends, and, for
// the families upstream's parsers-v2 builders cover, their parsers-v2 forms.

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
   * The family's tag lets a reasoning span the prompt opened run ahead of every tool choice (its
   * free text keeps the reasoning end out), keeping these markers out of the span; absent: only a
   * forced call's tag lets it run, with nothing kept out.
   */
  readonly reasoningSpan?: { readonly excludes: readonly string[] };
  /**
   * What upstream's parsers-v2 builder of this family adds; absent: upstream builds this family's
   * tags only with its v1 builders, which have none of it.
   */
  readonly parsersV2?: ParsersV2Forms;
}

/** A family's parsers-v2 forms, as upstream's parsers-v2 builder of that family shapes them. */
export interface ParsersV2Forms {
  /**
   * The calls alone (the output opens with a call and ends after the last): the tool branch beside
   * a response schema (`allow_tool_calls_with_structured_output`).
   */
  callsOnly(request: TagRequest): Format | null;
  /** The answer branch beside the calls; absent: the response's JSON schema itself. */
  response?(schema: unknown): Format;
  /** `exclude_special_tokens`: kept out of the free text around the calls (handed to `build` as the request's `textExcludes`). */
  readonly textExcludes: readonly string[];
  /** `exclude_special_tokens`: kept out of a reasoning span the tag lets run (the call openings). */
  readonly reasoningExcludes: readonly string[];
  /** Written after the reasoning end, ahead of the calls-or-answer tag (empty: nothing). */
  readonly reasoningSuffix: string;
}

const NAME = '{name}';

/** Calls reached from free text by a trigger; the free text keeps out the request's excluded markers. */
export function triggeredCalls(triggers: readonly string[], tags: TagFormat[], request: TagRequest): Format {
  const excludes = request.textExcludes ?? [];
  return {
    type: 'triggered_tags',
    triggers: [...triggers],
    tags,
    ...(excludes.length > 0 ? { excludes: [...excludes] } : {}),
    at_least_one: request.atLeastOne,
    stop_after_first: request.stopAfterFirst,
  };
}

/** One or more calls back to back, the last one ending the sequence. */
export const callSequence = (tags: TagFormat[], separator: string, request: TagRequest): Format => ({
  type: 'tags_with_separator',
  tags,
  separator,
  at_least_one: true,
  stop_after_first: request.stopAfterFirst,
});

export interface TriggeredTagsSpec {
  readonly begin: string;
  readonly end: string;
  readonly triggers: readonly string[];
  readonly style: JsonSchemaStyle;
  readonly banTokens: readonly string[];
  /** The family's parsers-v2 shape; absent: upstream has only the v1 tag for it. */
  readonly parsersV2?: Omit<ParsersV2Forms, 'callsOnly' | 'response'> & {
    /** Between two calls when the output is the calls alone. */
    readonly separator: string;
  };
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
  const builder: StructuralTagBuilder = {
    banTokens: spec.banTokens,
    reasoningEnd: '</think>',
    build: (request) => (request.tools.length === 0 ? null : triggeredCalls(spec.triggers, toolTags(request), request)),
  };
  const v2 = spec.parsersV2;
  if (v2 === undefined) return builder;
  return {
    ...builder,
    parsersV2: {
      callsOnly: (request) => (request.tools.length === 0 ? null : callSequence(toolTags(request), v2.separator, request)),
      textExcludes: v2.textExcludes,
      reasoningExcludes: v2.reasoningExcludes,
      reasoningSuffix: v2.reasoningSuffix,
    },
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

/**
 * DeepSeek's DSML: a block (opened by its trigger) of invokes, one per call. `parsersV2`: the
 * block is V4's `tool_calls`, which upstream's parsers-v2 DSML builder covers.
 */
export function dsmlBlock(block: string, options: { parsersV2: boolean }): StructuralTagBuilder {
  const start = `<｜DSML｜${block}>`;
  const end = `</｜DSML｜${block}>`;
  const invokes = (request: TagRequest): Format =>
    callSequence(
      request.tools.map((tool) =>
        tag(`<｜DSML｜invoke name="${tool.function.name}">\n`, { type: 'json_schema', json_schema: argumentsSchema(tool, request.schema), style: 'deepseek_xml' }, '</｜DSML｜invoke>\n'),
      ),
      '',
      request,
    );
  const builder: StructuralTagBuilder = {
    // The block's opening is several tokens: the DSML bar token is what can be banned.
    banTokens: ['｜DSML｜'],
    reasoningEnd: '</think>',
    build: (request) => (request.tools.length === 0 ? null : triggeredCalls([start], [tag(`${start}\n`, invokes(request), end)], request)),
  };
  if (!options.parsersV2) return builder;
  return {
    ...builder,
    parsersV2: {
      // The encoder writes a blank line between the text and the block: the calls alone begin with it.
      callsOnly: (request) => (request.tools.length === 0 ? null : tag(`\n\n${start}\n`, invokes(request), end)),
      textExcludes: ['<think>', '</think>'],
      reasoningExcludes: ['<｜DSML｜'],
      reasoningSuffix: '',
    },
  };
}

// Structural-tag guided decoding of tool calls, as a worker publishes it in its card's runtime
// config and the frontend applies it per request (upstream's `--dyn-structural-tag`). Here because
// both sides read it: the worker's flags make it, the frontend's card reader checks it.

export const STRUCTURAL_TAG_SCOPES = ['auto', 'always'] as const;
/** `auto`: required and named tool choices, or `auto` with a strict tool or `parallel_tool_calls: false`; `always`: every tool choice but `none`. */
export type StructuralTagScope = (typeof STRUCTURAL_TAG_SCOPES)[number];

export const STRUCTURAL_TAG_SCHEMAS = ['auto', 'strict'] as const;
/** `auto`: a tool's parameters constrain its arguments unless the tool says `strict: false`; `strict`: always. */
export type StructuralTagSchema = (typeof STRUCTURAL_TAG_SCHEMAS)[number];

const REASONING_BOUNDARIES = ['auto', 'structural_tag', 'backend'] as const;

/** The settings of `--dyn-structural-tag '{…}'` (`DYN_STRUCTURAL_TAG`), upstream's field names. */
export interface StructuralTagConfig {
  scope: StructuralTagScope;
  schema: StructuralTagSchema;
  allow_tool_calls_with_structured_output: boolean;
  exclude_special_tokens: boolean | null;
  reasoning_boundary: (typeof REASONING_BOUNDARIES)[number];
  tool_arguments_any_order: boolean;
}

/** What `--dyn-structural-tag` alone means: upstream's defaults. */
export const DEFAULT_STRUCTURAL_TAG_CONFIG: Readonly<StructuralTagConfig> = Object.freeze({
  scope: 'always',
  schema: 'auto',
  allow_tool_calls_with_structured_output: false,
  exclude_special_tokens: null,
  reasoning_boundary: 'auto',
  tool_arguments_any_order: false,
});

type FieldCheck = (value: unknown) => boolean;

const oneOf =
  (names: readonly string[]): FieldCheck =>
  (value) =>
    typeof value === 'string' && names.includes(value);
const isBool: FieldCheck = (value) => typeof value === 'boolean';

const FIELDS: Record<keyof StructuralTagConfig, { check: FieldCheck; accepted: string }> = {
  scope: { check: oneOf(STRUCTURAL_TAG_SCOPES), accepted: STRUCTURAL_TAG_SCOPES.join(' or ') },
  schema: { check: oneOf(STRUCTURAL_TAG_SCHEMAS), accepted: STRUCTURAL_TAG_SCHEMAS.join(' or ') },
  allow_tool_calls_with_structured_output: { check: isBool, accepted: 'a boolean' },
  exclude_special_tokens: { check: (value) => value === null || isBool(value), accepted: 'a boolean or null' },
  reasoning_boundary: { check: oneOf(REASONING_BOUNDARIES), accepted: REASONING_BOUNDARIES.join(', ') },
  tool_arguments_any_order: { check: isBool, accepted: 'a boolean' },
};

/**
 * A structural-tag configuration object with upstream's defaults for what it leaves out; throws
 * an Error naming the field for an unknown field or a value of the wrong kind, as upstream refuses it.
 */
export function structuralTagConfig(value: unknown): StructuralTagConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('must be a JSON object');
  const config: Record<string, unknown> = { ...DEFAULT_STRUCTURAL_TAG_CONFIG };
  for (const [field, given] of Object.entries(value)) {
    const rule = FIELDS[field as keyof StructuralTagConfig] as (typeof FIELDS)[keyof StructuralTagConfig] | undefined;
    if (rule === undefined) throw new Error(`has an unknown field \`${field}\` (known: ${Object.keys(FIELDS).join(', ')})`);
    if (!rule.check(given)) throw new Error(`field \`${field}\` must be ${rule.accepted}, got ${JSON.stringify(given)}`);
    config[field] = given;
  }
  return config as unknown as StructuralTagConfig;
}

/**
 * The options of upstream's parsers-v2 structural tags this frontend applies to the tags it builds:
 * `tool_arguments_any_order` (tool arguments' properties in any order: a weaker schema check, the
 * engine's grammar then accepts missing required properties) and `reasoning_boundary` (`backend`:
 * the engine's reasoning-aware guided decoding lets a reasoning span the prompt opened run, so the
 * tag does not; `auto` and `structural_tag`: the tag does, as no worker here says its engine does)
 * `allow_tool_calls_with_structured_output` and `exclude_special_tokens`.
 */
export interface StructuralTagOptions {
  toolArgumentsAnyOrder: boolean;
  reasoningBoundary: StructuralTagConfig['reasoning_boundary'];
  /**
   * `allow_tool_calls_with_structured_output`: an automatic choice with a `response_format`
   * gets a tag of either the tool calls or the response's schema. Absent: false.
   */
  toolCallsWithStructuredOutput?: boolean;
  /**
   * `exclude_special_tokens`: true keeps the family's reasoning and tool-call markers out of the
   * tag's free text; false, or absent (upstream's null), leaves the free text as the builder has it.
   */
  excludeSpecialTokens?: boolean;
}

export const DEFAULT_STRUCTURAL_TAG_OPTIONS: Readonly<StructuralTagOptions> = Object.freeze({
  toolArgumentsAnyOrder: DEFAULT_STRUCTURAL_TAG_CONFIG.tool_arguments_any_order,
  reasoningBoundary: DEFAULT_STRUCTURAL_TAG_CONFIG.reasoning_boundary,
});

/** What the frontend applies per request: when a tag is built, and whose schemas it enforces. */
export interface StructuralTagPolicy {
  scope: StructuralTagScope;
  schema: StructuralTagSchema;
}

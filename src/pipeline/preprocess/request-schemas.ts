// JSON Schemas of the request bodies, built from the same field tables the validators check, so
// the published API description (OpenAPI) cannot drift from what is accepted. They describe; the
// validators in validate/ stay the judges, with upstream's exact messages.

import type { FieldKind } from './json-types.js';
import { CHAT_FIELDS, COMPLETION_FIELDS, MAX_STOP_SEQUENCES, NVEXT_FIELDS } from './validate/index.js';

export type JsonSchema = Record<string, unknown>;

const NON_NEGATIVE_INT: JsonSchema = { type: 'integer', minimum: 0 };

const KIND_SCHEMAS: Record<FieldKind, JsonSchema> = {
  bool: { type: 'boolean' },
  number: { type: 'number' },
  int: { type: 'integer' },
  uint: NON_NEGATIVE_INT,
  u64: { oneOf: [NON_NEGATIVE_INT, { type: 'string', pattern: '^\\d{1,20}$' }], description: 'a u64; ids above 2^53 as decimal strings' },
  string: { type: 'string' },
  object: { type: 'object', additionalProperties: true },
  'string[]': { type: 'array', items: { type: 'string' } },
  'uint[]': { type: 'array', items: NON_NEGATIVE_INT },
  any: {},
};

/** Every optional field also accepts null (the validators treat null as absent). */
function nullable(schema: JsonSchema): JsonSchema {
  return 'type' in schema ? { ...schema, nullable: true } : schema;
}

/**
 * An object schema with one property per field of a validator's table; `shapes` gives the
 * structured fields (typed `any` in the table, checked by their own validators) their real shape.
 */
export function bodySchemaOf(
  fields: Record<string, FieldKind>,
  required: readonly string[],
  shapes: Record<string, JsonSchema> = {},
): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(fields).map(([name, kind]) => {
      const schema = shapes[name] ?? KIND_SCHEMAS[kind];
      return [name, required.includes(name) ? schema : nullable(schema)];
    }),
  );
  return { type: 'object', required: [...required], properties };
}

const TOKEN_IDS: JsonSchema = { type: 'array', items: NON_NEGATIVE_INT };

const TEXT_PART: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', example: 'text' }, text: { type: 'string' } },
  additionalProperties: true,
};

const MESSAGE: JsonSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: { oneOf: [{ type: 'string' }, { type: 'array', items: TEXT_PART }], nullable: true },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: { type: 'object', additionalProperties: true } },
    tool_call_id: { type: 'string' },
    reasoning_content: { type: 'string', nullable: true },
  },
  additionalProperties: true,
};

const FUNCTION_TOOL: JsonSchema = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { type: 'string', enum: ['function'] },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9_-]*$' },
        description: { type: 'string' },
        parameters: { type: 'object', additionalProperties: true, description: 'JSON Schema of the arguments' },
        strict: { type: 'boolean' },
      },
    },
  },
};

const STOP: JsonSchema = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: MAX_STOP_SEQUENCES },
    { ...TOKEN_IDS, minItems: 1, maxItems: MAX_STOP_SEQUENCES },
  ],
  nullable: true,
  description: 'sequences (or token ids) where generation stops',
};

const SHARED_SHAPES: Record<string, JsonSchema> = {
  model: { type: 'string', description: 'a model listed by /v1/models' },
  stream: { type: 'boolean', nullable: true, description: 'answer as server-sent events' },
  stream_options: {
    type: 'object',
    nullable: true,
    properties: { include_usage: { type: 'boolean', nullable: true } },
  },
  stop: STOP,
  nvext: { ...bodySchemaOf(NVEXT_FIELDS, []), nullable: true, description: 'NVIDIA extensions (routing, annotations)' },
  stop_token_ids: TOKEN_IDS,
  allowed_token_ids: TOKEN_IDS,
  bad_words_token_ids: { type: 'array', items: TOKEN_IDS },
  logprob_token_ids: TOKEN_IDS,
};

const DEPRECATED: JsonSchema = { deprecated: true, description: 'deprecated: answered with 501' };

export const CHAT_REQUEST_SCHEMA: JsonSchema = {
  ...bodySchemaOf(CHAT_FIELDS, ['model', 'messages'], {
    ...SHARED_SHAPES,
    messages: { type: 'array', items: MESSAGE, minItems: 1 },
    tools: { type: 'array', items: FUNCTION_TOOL, nullable: true },
    tool_choice: {
      oneOf: [
        { type: 'string', enum: ['none', 'auto', 'required'] },
        { type: 'object', properties: { type: { type: 'string' }, function: { type: 'object', properties: { name: { type: 'string' } } } } },
      ],
      nullable: true,
    },
    response_format: {
      type: 'object',
      nullable: true,
      properties: {
        type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object', additionalProperties: true },
      },
    },
    function_call: DEPRECATED,
    functions: DEPRECATED,
  }),
  example: { model: 'Qwen/Qwen3-0.6B', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 32 },
};

export const COMPLETION_REQUEST_SCHEMA: JsonSchema = {
  ...bodySchemaOf(COMPLETION_FIELDS, ['model'], {
    ...SHARED_SHAPES,
    prompt: {
      oneOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' } },
        TOKEN_IDS,
        { type: 'array', items: TOKEN_IDS },
      ],
      description: 'a string, strings, token ids or lists of token ids',
    },
  }),
  example: { model: 'Qwen/Qwen3-0.6B', prompt: 'Once upon a time', max_tokens: 32 },
};

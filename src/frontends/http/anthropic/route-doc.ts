// What /openapi.json says about POST /v1/messages and /v1/messages/count_tokens: one property per
// field request.ts accepts, errors in Anthropic's envelope.
import type { JsonSchema } from '../../../pipeline/index.js';
import { json, jsonOrStream, type ResponseDoc, type RouteDoc } from '../openapi/index.js';
import { COUNT_TOKENS_FIELDS, MESSAGES_FIELDS } from './request.js';

const BLOCKS: JsonSchema = { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'thinking, text and tool_use blocks, in the order generated' };

const SHAPES: Record<string, JsonSchema> = {
  model: { type: 'string', description: 'a model listed by /v1/models' },
  messages: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'user / assistant turns: a string, or text, image, tool_use, tool_result and thinking blocks' },
  max_tokens: { type: 'integer', minimum: 1 },
  system: { oneOf: [{ type: 'string' }, BLOCKS], description: 'a string or text blocks; sent as the system message' },
  stop_sequences: { type: 'array', items: { type: 'string' } },
  stream: { type: 'boolean', description: 'answer as named server-sent events' },
  temperature: { type: 'number' },
  top_p: { type: 'number' },
  top_k: { type: 'integer' },
  tools: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'client tools: name, description, input_schema' },
  tool_choice: { type: 'object', additionalProperties: true, description: 'auto, any, tool (with name) or none' },
  thinking: { type: 'object', additionalProperties: true, description: 'enabled / disabled: the chat template\'s enable_thinking; budget_tokens caps reasoning tokens' },
  metadata: { type: 'object', properties: { user_id: { type: 'string' } } },
  service_tier: { type: 'string', description: 'accepted and ignored' },
  seed: { type: 'integer', description: 'dynamo-ts extension: the sampling seed' },
  nvext: { type: 'object', additionalProperties: true, description: 'dynamo-ts extension: Dynamo request extensions, as in chat' },
};

const ANTHROPIC_ERROR: JsonSchema = {
  type: 'object',
  required: ['type', 'error'],
  properties: {
    type: { type: 'string', enum: ['error'] },
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: { type: { type: 'string', example: 'invalid_request_error' }, message: { type: 'string' } },
    },
  },
};

const ERRORS: Record<number, ResponseDoc> = {
  400: json('invalid_request_error: the message names the field', ANTHROPIC_ERROR),
  404: json('not_found_error: unknown model', ANTHROPIC_ERROR),
  529: json('overloaded_error: no capacity (503 when no worker is ready)', ANTHROPIC_ERROR),
};

const body = (fields: readonly string[], required: string[], example: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  required,
  properties: Object.fromEntries(fields.map((name) => [name, SHAPES[name] ?? {}])),
  example,
});

const EXAMPLE = { model: 'Qwen/Qwen3-0.6B', max_tokens: 32, messages: [{ role: 'user', content: 'Hello!' }] };

export const MESSAGES_DOC: RouteDoc = {
  summary: 'Create a message',
  tag: 'Anthropic',
  description: 'Anthropic Messages API over the chat pipeline; streams `message_start` … `message_stop` events when `stream: true`.',
  body: body(MESSAGES_FIELDS, ['model', 'messages', 'max_tokens'], EXAMPLE),
  responses: {
    200: jsonOrStream(
      'The Message object, or its named events when streaming',
      { type: 'object', properties: { id: { type: 'string' }, type: { type: 'string', enum: ['message'] }, content: BLOCKS, stop_reason: { type: 'string' }, usage: { type: 'object', additionalProperties: true } } },
      '`event: <type>` / `data: <event JSON>` pairs: message_start, ping, content_block_start/delta/stop per block, message_delta, message_stop',
    ),
    ...ERRORS,
  },
};

export const COUNT_TOKENS_DOC: RouteDoc = {
  summary: 'Count the tokens of a message request',
  tag: 'Anthropic',
  description: 'The prompt\'s token count after the chat template.',
  body: body(COUNT_TOKENS_FIELDS, ['model', 'messages'], { model: EXAMPLE.model, messages: EXAMPLE.messages }),
  responses: { 200: json('The prompt\'s tokens', { type: 'object', required: ['input_tokens'], properties: { input_tokens: { type: 'integer' } } }), ...ERRORS },
};

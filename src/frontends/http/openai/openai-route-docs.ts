// What /openapi.json says about chat and completions: the bodies come from the validators' field
// tables (pipeline), the answers from the shapes openai-chunks.ts writes.
import { CHAT_REQUEST_SCHEMA, COMPLETION_REQUEST_SCHEMA, type JsonSchema } from '../../../pipeline/index.js';
import { INFERENCE_ERRORS, jsonOrStream, type RouteDoc } from '../openapi/index.js';

const USAGE: JsonSchema = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
  },
};

const FINISH_REASON: JsonSchema = { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter'], nullable: true };

function completionObject(object: string, choice: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      id: { type: 'string' },
      object: { type: 'string', enum: [object] },
      created: { type: 'integer', description: 'Unix seconds' },
      model: { type: 'string' },
      choices: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, ...choice, finish_reason: FINISH_REASON } } },
      usage: USAGE,
    },
  };
}

export const CHAT_DOC: RouteDoc = {
  summary: 'Create a chat completion',
  tag: 'OpenAI',
  description: 'OpenAI chat completions, unary or streamed (`stream: true`).',
  body: CHAT_REQUEST_SCHEMA,
  responses: {
    200: jsonOrStream(
      'The completion (`chat.completion`), or `chat.completion.chunk` events when streaming',
      completionObject('chat.completion', {
        message: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string', nullable: true } } },
      }),
    ),
    ...INFERENCE_ERRORS,
  },
};

export const COMPLETIONS_DOC: RouteDoc = {
  summary: 'Create a completion',
  tag: 'OpenAI',
  description: 'OpenAI legacy completions; one choice per prompt and `n`.',
  body: COMPLETION_REQUEST_SCHEMA,
  responses: {
    200: jsonOrStream('The completion (`text_completion`), or its chunks when streaming', completionObject('text_completion', { text: { type: 'string' } })),
    ...INFERENCE_ERRORS,
  },
};

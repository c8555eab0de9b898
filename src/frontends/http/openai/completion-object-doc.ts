// The answer object chat and completions share in /openapi.json: the shape openai-chunks.ts folds
// choices into.
import type { JsonSchema } from '../../../pipeline/index.js';

const USAGE: JsonSchema = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer' },
    completion_tokens: { type: 'integer' },
    total_tokens: { type: 'integer' },
  },
};

const FINISH_REASON: JsonSchema = { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter'], nullable: true };

/** The answer object of chat (`chat.completion`) or completions (`text_completion`), with its choice's fields. */
export function completionObject(object: string, choice: JsonSchema): JsonSchema {
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

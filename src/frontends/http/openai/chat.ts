// POST /v1/chat/completions: OpenAI chat completions, unary or streamed. The body's schema is the
// validator's field table (pipeline); the answer is openai-route.ts's.
import { CHAT_REQUEST_SCHEMA } from '../../../pipeline/index.js';
import type { HttpRoute } from '../http-route.js';
import { INFERENCE_ERRORS, jsonOrStream, type RouteDoc } from '../openapi/index.js';
import { completionObject } from './completion-object-doc.js';
import { openAiRoute } from './openai-route.js';

const CHAT_DOC: RouteDoc = {
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

export const CHAT_ROUTE: HttpRoute = openAiRoute('chat', CHAT_DOC);

// POST /v1/completions: OpenAI legacy completions, one choice per prompt and `n`. The body's schema
// is the validator's field table (pipeline); the answer is openai-route.ts's.
import { COMPLETION_REQUEST_SCHEMA } from '../../../pipeline/index.js';
import type { HttpRoute } from '../http-route.js';
import { INFERENCE_ERRORS, jsonOrStream, type RouteDoc } from '../openapi/index.js';
import { completionObject } from './completion-object-doc.js';
import { openAiRoute } from './openai-route.js';

const COMPLETIONS_DOC: RouteDoc = {
  summary: 'Create a completion',
  tag: 'OpenAI',
  description: 'OpenAI legacy completions; one choice per prompt and `n`.',
  body: COMPLETION_REQUEST_SCHEMA,
  responses: {
    200: jsonOrStream('The completion (`text_completion`), or its chunks when streaming', completionObject('text_completion', { text: { type: 'string' } })),
    ...INFERENCE_ERRORS,
  },
};

export const COMPLETIONS_ROUTE: HttpRoute = openAiRoute('completions', COMPLETIONS_DOC);

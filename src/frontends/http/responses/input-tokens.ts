// POST /v1/responses/input_tokens: what a Responses request's input would cost, counted as the
// model would read it: the request translated to chat, rendered by the model's chat template with
// its tools and instructions, and tokenized by its tokenizer; nothing is generated.

import type { ChatCompletionRequest } from '../../../protocols/index.js';
import { modelRouteHandler, type ModelRouteContext, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { postRoute } from '../server.js';
import type { FastifyInstance } from 'fastify';
import { responsesModelName, translateResponsesRequest } from './request.js';
import { RESPONSES_API } from './responses-api.js';
import type { StoredResponses } from './stored-responses.js';

/** Fields only the counting endpoint takes, with nothing to count: a tone of voice for ChatGPT's products. */
const COUNT_ONLY_FIELDS = ['personality'];

function countedChat(body: unknown, earlier: Record<string, unknown>[]): Record<string, unknown> {
  const rest = { ...(body as Record<string, unknown>) };
  for (const field of COUNT_ONLY_FIELDS) delete rest[field];
  // The count is the same streamed or not.
  delete rest.stream;
  return translateResponsesRequest(rest, earlier).chat;
}

/** With `previous_response_id`, the stored responses it continues count too. */
const inputTokensSpec = (stored: StoredResponses): ModelRouteSpec<ChatCompletionRequest> => ({
  api: RESPONSES_API,
  endpoint: 'responses_input_tokens',
  modelName: responsesModelName,
  prepare: async (req, served) => served.preprocessor.validateChat(countedChat(req.body, await stored.earlierItems(req.body, stored.ownerOf(req.headers)))),
  async run(call, chat) {
    const prepared = await call.served.preprocessor.preprocessChat(chat);
    return { object: 'response.input_tokens', input_tokens: prepared.promptTokens };
  },
});

const INPUT_TOKENS_DOC: RouteDoc = {
  summary: "Count a response's input tokens",
  tag: 'OpenAI',
  description: "The request's input, instructions and tools as the model's chat template renders them and its tokenizer counts them.",
  body: { type: 'object', required: ['model', 'input'], additionalProperties: true, example: { model: 'Qwen/Qwen3-0.6B', input: 'Hello!' } },
  responses: {
    200: json('The count', { type: 'object', properties: { object: { type: 'string', enum: ['response.input_tokens'] }, input_tokens: { type: 'integer' } } }),
    ...INFERENCE_ERRORS,
  },
};

/** Mounted below the Responses route's own path. */
export function registerInputTokens(app: FastifyInstance, responsesPath: string, ctx: ModelRouteContext, stored: StoredResponses): void {
  postRoute(app, `${responsesPath}/input_tokens`, modelRouteHandler(ctx, inputTokensSpec(stored)), INPUT_TOKENS_DOC);
}

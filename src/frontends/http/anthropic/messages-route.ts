// POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API over the shared
// pipeline, behind --enable-anthropic-api. The body is translated to a chat request, preprocessed,
// generated and folded like chat; only the wire shapes differ (message-object.ts,
// message-events.ts), and every error reads in Anthropic's envelope, framework errors included.

import type { FastifyReply } from 'fastify';
import type { ServedModel } from '../../../models/index.js';
import type { HeaderRouting, JsonSchema } from '../../../pipeline/index.js';
import { NotFoundError, type ChatCompletionRequest, type ModelApi } from '../../../protocols/index.js';
import { anthropicErrorReply } from '../error-envelope.js';
import type { HttpRoute } from '../http-route.js';
import {
  answerSingleChoice,
  generationSpec,
  modelRouteHandler,
  prepareTranslatedChat,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type ModelRouteContext,
  type ModelRouteSpec,
  type TranslatedChat,
} from '../model-route/index.js';
import { json, jsonOrStream, type ResponseDoc, type RouteDoc } from '../openapi/index.js';
import { newItemId } from '../responses/index.js';
import { frameworkErrorHandler, postRoute, sendError } from '../server.js';
import { MessageEvents } from './message-events.js';
import type { MessageHead } from './message-object.js';
import { COUNT_TOKENS_FIELDS, IGNORED_FIELDS, MESSAGES_FIELDS, messagesModelName, translateCountTokensRequest, translateMessagesRequest, type MessagesTranslation } from './request.js';

type MessagesRouteOptions = GenerationRouteOptions & MessagesTranslation;

const MESSAGES_API: ModelApi = { type: 'Chat', describe: 'the Anthropic Messages API' };

interface Prepared extends TranslatedChat {
  stopSequences: readonly string[];
}

/**
 * The Messages routes in a scope of their own, so body-parsing errors and unknown subroutes
 * (`Route not found: …`, not_found_error) answer in Anthropic's envelope too. Served with
 * --enable-anthropic-api only (absent: 404).
 */
export const MESSAGES_ROUTE: HttpRoute = {
  register(app, path, ctx) {
    const api = ctx.options.anthropicApi;
    if (!api) return;
    const { state } = ctx;
    const opts: MessagesRouteOptions = { ...ctx.generation, stripPreamble: api.stripPreamble };
    const routeCtx: ModelRouteContext = { ...ctx, errorEnvelope: anthropicErrorReply };
    void app.register(
      async (scope) => {
        scope.setErrorHandler(frameworkErrorHandler(ctx.options.bodyLimitMb, state, anthropicErrorReply));
        scope.setNotFoundHandler((req, reply) => {
          sendError(reply, new NotFoundError(`Route not found: ${req.method} ${req.url.split('?')[0]}`), state.overloadStatus, anthropicErrorReply);
        });
        postRoute(scope, '', modelRouteHandler(routeCtx, generationSpec(new MessagesRoute(opts), opts)), MESSAGES_DOC);
        postRoute(scope, '/count_tokens', modelRouteHandler(routeCtx, countTokensSpec(opts)), COUNT_TOKENS_DOC);
      },
      { prefix: path },
    );
  },
};

class MessagesRoute implements GenerationRoute<Prepared> {
  readonly endpoint = 'messages';
  readonly api = MESSAGES_API;

  constructor(private readonly opts: MessagesRouteOptions) {}

  modelName(body: unknown): string {
    return messagesModelName(body);
  }

  async prepare(body: unknown, served: ServedModel, routing: HeaderRouting): Promise<Prepared> {
    const translated = translateMessagesRequest(body, this.opts);
    return { ...(await prepareTranslatedChat(served, translated.chat, translated.stream, routing)), stopSequences: translated.stopSequences };
  }

  async respond(generation: Generation<Prepared>, reply: FastifyReply): Promise<unknown> {
    const { prepared } = generation;
    const head: MessageHead = { id: newItemId('msg'), model: prepared.model };
    return answerSingleChoice(generation, reply, this.opts.sseKeepAliveMs, (out, fold) => new MessageEvents(out, head, fold, prepared.stopSequences));
  }
}

/** count_tokens: the prompt's token count after the chat template, as the generation would see it. */
function countTokensSpec(opts: MessagesTranslation): ModelRouteSpec<ChatCompletionRequest> {
  return {
    api: MESSAGES_API,
    endpoint: 'messages_count_tokens',
    modelName: messagesModelName,
    prepare: (req, served) => served.preprocessor.validateChat(translateCountTokensRequest(req.body, opts)),
    async run(call, chat) {
      const preprocessor = call.served.preprocessor;
      const prepared = await preprocessor.preprocessChat(await preprocessor.placeLateSystemMessages(chat));
      return { input_tokens: prepared.promptTokens };
    },
  };
}

// What /openapi.json says about them: one property per field request.ts accepts, errors in Anthropic's envelope.
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
  output_config: { type: 'object', additionalProperties: true, description: 'effort (low, medium, high, max) is the template\'s reasoning_effort; format (json_schema) guides the output' },
  output_format: { type: 'object', additionalProperties: true, description: 'a json_schema format that guides the output (the older spelling of output_config.format)' },
  mcp_servers: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'remote MCP servers: only an empty list is accepted (offer their tools as client tools)' },
  ...Object.fromEntries(IGNORED_FIELDS.map((field) => [field, { description: 'accepted and ignored: nothing for this gateway to do (docs/api-fields.md)' }])),
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

const MESSAGES_DOC: RouteDoc = {
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

const COUNT_TOKENS_DOC: RouteDoc = {
  summary: 'Count the tokens of a message request',
  tag: 'Anthropic',
  description: 'The prompt\'s token count after the chat template.',
  body: body(COUNT_TOKENS_FIELDS, ['model', 'messages'], { model: EXAMPLE.model, messages: EXAMPLE.messages }),
  responses: { 200: json('The prompt\'s tokens', { type: 'object', required: ['input_tokens'], properties: { input_tokens: { type: 'integer' } } }), ...ERRORS },
};

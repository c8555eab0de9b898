// POST /v1/responses: OpenAI's Responses API, stateless, over the shared pipeline. The body is
// translated to a chat request, preprocessed, generated and folded like chat; only the wire
// shapes differ (response-object.ts, response-events.ts).

import type { FastifyReply } from 'fastify';
import type { ServedModel } from '../../../models/index.js';
import type { HeaderRouting, JsonSchema } from '../../../pipeline/index.js';
import type { ModelApi } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import {
  answerSingleChoice,
  generatingRoute,
  prepareTranslatedChat,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type TranslatedChat,
} from '../model-route/index.js';
import { INFERENCE_ERRORS, jsonOrStream, type RouteDoc } from '../openapi/index.js';
import { COMPACT_ROUTE } from './compaction.js';
import { registerInputTokens } from './input-tokens.js';
import type { OfferedTools } from './offered-tools.js';
import { RESPONSES_FIELDS, responsesModelName, translateResponsesRequest, UNSUPPORTED_RESPONSES_FIELDS } from './request.js';
import { ResponseEvents } from './response-events.js';
import { RESPONSES_API } from './responses-api.js';
import type { ResponseHead } from './response-object.js';

interface Prepared extends TranslatedChat {
  echo: Record<string, unknown>;
  tools: OfferedTools;
}

class ResponsesRoute implements GenerationRoute<Prepared> {
  readonly endpoint = 'responses';
  readonly api: ModelApi = RESPONSES_API;

  constructor(private readonly opts: GenerationRouteOptions) {}

  modelName(body: unknown): string {
    return responsesModelName(body);
  }

  async prepare(body: unknown, served: ServedModel, routing: HeaderRouting): Promise<Prepared> {
    const translated = translateResponsesRequest(body);
    return { ...(await prepareTranslatedChat(served, translated.chat, translated.stream, routing)), echo: translated.echo, tools: translated.tools };
  }

  async respond(generation: Generation<Prepared>, reply: FastifyReply): Promise<unknown> {
    const { prepared } = generation;
    const head: ResponseHead = {
      id: `resp_${generation.requestId.replaceAll('-', '')}`,
      createdAt: Math.floor(Date.now() / 1000),
      model: prepared.model,
      echo: prepared.echo,
    };
    return answerSingleChoice(generation, reply, this.opts.sseKeepAliveMs, (out, fold) => new ResponseEvents(out, head, fold, prepared.tools));
  }
}

/** What /openapi.json says about it: one property per field request.ts accepts. */
const SHAPES: Record<string, JsonSchema> = {
  model: { type: 'string', description: 'a model listed by /v1/models' },
  input: {
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }],
    description: 'text, or message / function_call / function_call_output items',
  },
  instructions: { type: 'string', nullable: true, description: 'sent as the system message' },
  tools: { type: 'array', items: { type: 'object', additionalProperties: true }, nullable: true, description: 'function tools' },
  max_output_tokens: { type: 'integer', minimum: 1, nullable: true },
  temperature: { type: 'number', nullable: true },
  top_p: { type: 'number', nullable: true },
  text: { type: 'object', nullable: true, description: '`format` (json_schema) becomes guided decoding' },
  reasoning: { type: 'object', nullable: true, properties: { effort: { type: 'string' } } },
  stream: { type: 'boolean', nullable: true, description: 'answer as typed server-sent events' },
  store: { type: 'boolean', nullable: true, description: '`true` is refused: this gateway is stateless' },
};

const BODY: JsonSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: Object.fromEntries(
    RESPONSES_FIELDS.map((name) => {
      const unsupported = UNSUPPORTED_RESPONSES_FIELDS[name];
      return [name, unsupported ? { description: `answered with 501: ${unsupported}` } : (SHAPES[name] ?? {})];
    }),
  ),
  example: { model: 'Qwen/Qwen3-0.6B', input: 'Hello!', max_output_tokens: 32 },
};

const RESPONSES_DOC: RouteDoc = {
  summary: 'Create a model response',
  tag: 'OpenAI',
  description: 'OpenAI Responses API, stateless; streams `response.*` events when `stream: true`.',
  body: BODY,
  responses: {
    200: jsonOrStream(
      'The Response object, or its typed events when streaming',
      { type: 'object', properties: { id: { type: 'string' }, object: { type: 'string', enum: ['response'] }, status: { type: 'string' }, output: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'reasoning, message and function_call items, in the order generated' } } },
      '`event: response.<type>` / `data: <event JSON>` pairs, ending with response.completed (no [DONE])',
    ),
    ...INFERENCE_ERRORS,
  },
};

const CREATE_ROUTE = generatingRoute(RESPONSES_DOC, ({ generation }) => new ResponsesRoute(generation));

/** The Responses API: create at its path, and the input token count and compaction below it. */
export const RESPONSES_ROUTE: HttpRoute = {
  register(app, path, ctx) {
    CREATE_ROUTE.register(app, path, ctx);
    registerInputTokens(app, path, ctx);
    COMPACT_ROUTE.register(app, `${path}/compact`, ctx);
  },
};

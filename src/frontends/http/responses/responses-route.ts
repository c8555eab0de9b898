// POST /v1/responses: OpenAI's Responses API over the shared pipeline. The body is translated to a
// chat request, preprocessed, generated and folded like chat; only the wire shapes differ
// (response-object.ts, response-events.ts). Answers are stored unless `store: false`
// (storing-answer.ts), and `previous_response_id` reads a stored chain first (stored-responses.ts,
// stored-routes.ts). A GET upgrade at the same path is the WebSocket mode (websocket/), which
// prepares and answers each `response.create` through this route.

import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { ServedModel } from '../../../models/index.js';
import type { HeaderRouting, JsonSchema, ResponseFold } from '../../../pipeline/index.js';
import type { ModelApi } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import {
  answerSingleChoice,
  generationSpec,
  modelRouteHandler,
  prepareTranslatedChat,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type EventOut,
  type TranslatedChat,
} from '../model-route/index.js';
import { INFERENCE_ERRORS, jsonOrStream, type RouteDoc } from '../openapi/index.js';
import { postRoute } from '../server.js';
import { COMPACT_ROUTE } from './compaction.js';
import { registerInputTokens } from './input-tokens.js';
import type { OfferedTools } from './offered-tools.js';
import { RESPONSES_FIELDS, responsesModelName, translateResponsesRequest, UNSUPPORTED_RESPONSES_FIELDS } from './request.js';
import { ResponseEvents, type ResponseAnswer } from './response-events.js';
import { RESPONSES_API } from './responses-api.js';
import type { ResponseHead } from './response-object.js';
import type { StoredResponses } from './stored-responses.js';
import { openStoredResponses, registerStoredRoutes } from './stored-routes.js';
import { StoringAnswer } from './storing-answer.js';
import { registerResponsesSocket } from './websocket/index.js';

/** A Responses body, validated and preprocessed. */
export interface PreparedResponse extends TranslatedChat {
  echo: Record<string, unknown>;
  tools: OfferedTools;
  /** Whether the answer is stored, and under whom (stored-responses.ts). */
  store: boolean;
  owner: string | null;
  inputItems: Record<string, unknown>[];
}

export class ResponsesRoute implements GenerationRoute<PreparedResponse> {
  readonly endpoint = 'responses';
  readonly api: ModelApi = RESPONSES_API;

  constructor(
    private readonly opts: GenerationRouteOptions,
    private readonly stored: StoredResponses,
  ) {}

  modelName(body: unknown): string {
    return responsesModelName(body);
  }

  async prepare(body: unknown, served: ServedModel, routing: HeaderRouting, req: FastifyRequest): Promise<PreparedResponse> {
    const owner = this.stored.ownerOf(req.headers);
    return this.prepareWith(body, served, routing, owner, await this.stored.earlierItems(body, owner));
  }

  /** Prepares `body` for `owner`, reading `earlier` (the items of the responses it continues) before its input. */
  async prepareWith(body: unknown, served: ServedModel, routing: HeaderRouting, owner: string | null, earlier: readonly Record<string, unknown>[]): Promise<PreparedResponse> {
    const translated = translateResponsesRequest(body, earlier);
    return {
      ...(await prepareTranslatedChat(served, translated.chat, translated.stream, routing)),
      echo: translated.echo,
      tools: translated.tools,
      store: translated.store,
      owner,
      inputItems: translated.inputItems,
    };
  }

  async respond(generation: Generation<PreparedResponse>, reply: FastifyReply): Promise<unknown> {
    return answerSingleChoice(generation, reply, this.opts.sseKeepAliveMs, (out, fold) => this.events(generation.prepared, out, fold, reply.log));
  }

  /** The events of an answer, written to `out`; stored as it ends unless `store: false`. */
  events(prepared: PreparedResponse, out: EventOut, fold: ResponseFold, log: FastifyBaseLogger): ResponseAnswer {
    const head: ResponseHead = {
      // Never the client's x-request-id: a stored response's id must be new, a key the stores take as it is.
      id: `resp_${randomUUID().replaceAll('-', '')}`,
      createdAt: Math.floor(Date.now() / 1000),
      model: prepared.model,
      echo: prepared.echo,
    };
    const answer = (to: EventOut): ResponseEvents => new ResponseEvents(to, head, fold, prepared.tools);
    if (!prepared.store) return answer(out);
    return new StoringAnswer(out, answer, (response, events) =>
      this.stored.put({ response, inputItems: prepared.inputItems, events, owner: prepared.owner }).catch((err: unknown) => log.error({ err }, 'storing the response failed')),
    );
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
  store: { type: 'boolean', nullable: true, description: 'keep the response for GET, DELETE and `previous_response_id` (default true)' },
  previous_response_id: { type: 'string', nullable: true, description: "continue a stored response: its input and output items are read before this input (its instructions are not)" },
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
  description:
    'OpenAI Responses API; streams `response.*` events when `stream: true`. Stored unless `store: false` (GET, DELETE, input_items below it). ' +
    'WebSocket mode: a GET at this path with `Upgrade: websocket` (and the API key, as here) opens a connection that takes `response.create` events ' +
    '(this body without `stream`, plus `generate: false` for a warm-up) and answers each with these events, one response after another; ' +
    '`previous_response_id` also reads the last responses of the connection, so `store: false` continues too. Errors are `{type: "error", status, error}` events.',
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

/** The Responses API: create at its path; below it, the input token count, compaction and the stored responses. */
export const RESPONSES_ROUTE: HttpRoute = {
  register(app, path, ctx) {
    const stored = openStoredResponses(app, ctx);
    const route = new ResponsesRoute(ctx.generation, stored);
    // Its GET is the WebSocket mode's upgrade.
    postRoute(app, path, modelRouteHandler(ctx, generationSpec(route, ctx.generation)), RESPONSES_DOC, ['GET']);
    registerResponsesSocket(app, path, ctx, route, stored);
    registerInputTokens(app, path, ctx, stored);
    registerStoredRoutes(app, path, ctx, stored);
    COMPACT_ROUTE.register(app, `${path}/compact`, ctx);
  },
};

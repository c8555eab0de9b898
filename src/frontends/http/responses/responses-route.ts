// POST /v1/responses: OpenAI's Responses API, stateless, over the shared pipeline. The body is
// translated to a chat request, preprocessed, generated and folded like chat; only the wire
// shapes differ (response-object.ts, response-events.ts).

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ModelManager, ServedModel } from '../../../models/index.js';
import {
  answerSingleChoice,
  generationSpec,
  prepareTranslatedChat,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type TranslatedChat,
} from '../model-route/index.js';
import { modelRouteHandler } from '../model-route/index.js';
import { postRoute } from '../server.js';
import type { HttpServiceState } from '../service-state.js';
import { translateResponsesRequest, responsesModelName } from './request.js';
import { ResponseEvents } from './response-events.js';
import { RESPONSES_DOC } from './route-doc.js';
import type { ResponseHead } from './response-object.js';

export interface ResponsesRouteOptions extends GenerationRouteOptions {
  responsesPath: string;
}

interface Prepared extends TranslatedChat {
  echo: Record<string, unknown>;
}

export function registerResponsesRoute(app: FastifyInstance, state: HttpServiceState, models: ModelManager, opts: ResponsesRouteOptions): void {
  const ctx = { state, models, requestScope: opts.requestScope };
  postRoute(app, opts.responsesPath, modelRouteHandler(ctx, generationSpec(new ResponsesRoute(opts), opts)), RESPONSES_DOC);
}

class ResponsesRoute implements GenerationRoute<Prepared> {
  readonly endpoint = 'responses';
  readonly api = 'responses' as const;

  constructor(private readonly opts: ResponsesRouteOptions) {}

  modelName(body: unknown): string {
    return responsesModelName(body);
  }

  async prepare(body: unknown, served: ServedModel): Promise<Prepared> {
    const translated = translateResponsesRequest(body);
    return { ...(await prepareTranslatedChat(served, translated.chat, translated.stream)), echo: translated.echo };
  }

  async respond(generation: Generation<Prepared>, reply: FastifyReply): Promise<unknown> {
    const { prepared } = generation;
    const head: ResponseHead = {
      id: `resp_${generation.requestId.replaceAll('-', '')}`,
      createdAt: Math.floor(Date.now() / 1000),
      model: prepared.model,
      echo: prepared.echo,
    };
    return answerSingleChoice(generation, reply, this.opts.sseKeepAliveMs, (out, fold) => new ResponseEvents(out, head, fold));
  }
}

// POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API over the shared
// pipeline, behind --enable-anthropic-api. The body is translated to a chat request, preprocessed,
// generated and folded like chat; only the wire shapes differ (message-object.ts,
// message-events.ts), and every error reads in Anthropic's envelope, framework errors included.

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ModelManager, ServedModel } from '../../../models/index.js';
import { NotFoundError, type ChatCompletionRequest } from '../../../protocols/index.js';
import { anthropicErrorReply } from '../error-envelope.js';
import {
  answerSingleChoice,
  generationSpec,
  prepareTranslatedChat,
  type Generation,
  type GenerationRoute,
  type GenerationRouteOptions,
  type TranslatedChat,
} from '../model-route/index.js';
import { modelRouteHandler, type ModelRouteContext, type ModelRouteSpec } from '../model-route/index.js';
import { newItemId } from '../responses/index.js';
import { frameworkErrorHandler, postRoute, sendError } from '../server.js';
import type { HttpServiceState } from '../service-state.js';
import { MessageEvents } from './message-events.js';
import type { MessageHead } from './message-object.js';
import { messagesModelName, translateCountTokensRequest, translateMessagesRequest, type MessagesTranslation } from './request.js';
import { COUNT_TOKENS_DOC, MESSAGES_DOC } from './route-doc.js';

export interface MessagesRouteOptions extends GenerationRouteOptions, MessagesTranslation {
  /** DYN_HTTP_SVC_ANTHROPIC_PATH; count_tokens is below it. */
  messagesPath: string;
  /** For the 413 message of bodies over the limit. */
  bodyLimitMb: number;
}

interface Prepared extends TranslatedChat {
  stopSequences: readonly string[];
}

/**
 * The Messages routes in a scope of their own, so body-parsing errors and unknown subroutes
 * (`Route not found: …`, not_found_error) answer in Anthropic's envelope too.
 */
export function registerMessagesRoutes(app: FastifyInstance, state: HttpServiceState, models: ModelManager, opts: MessagesRouteOptions): void {
  const ctx: ModelRouteContext = { state, models, requestScope: opts.requestScope, errorEnvelope: anthropicErrorReply };
  void app.register(
    async (scope) => {
      scope.setErrorHandler(frameworkErrorHandler(opts.bodyLimitMb, state, anthropicErrorReply));
      scope.setNotFoundHandler((req, reply) => {
        sendError(reply, new NotFoundError(`Route not found: ${req.method} ${req.url.split('?')[0]}`), state.overloadStatus, anthropicErrorReply);
      });
      postRoute(scope, '', modelRouteHandler(ctx, generationSpec(new MessagesRoute(opts), opts)), MESSAGES_DOC);
      postRoute(scope, '/count_tokens', modelRouteHandler(ctx, countTokensSpec(opts)), COUNT_TOKENS_DOC);
    },
    { prefix: opts.messagesPath },
  );
}

class MessagesRoute implements GenerationRoute<Prepared> {
  readonly endpoint = 'messages';
  readonly api = 'messages' as const;

  constructor(private readonly opts: MessagesRouteOptions) {}

  modelName(body: unknown): string {
    return messagesModelName(body);
  }

  async prepare(body: unknown, served: ServedModel): Promise<Prepared> {
    const translated = translateMessagesRequest(body, this.opts);
    return { ...(await prepareTranslatedChat(served, translated.chat, translated.stream)), stopSequences: translated.stopSequences };
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
    api: 'messages',
    endpoint: 'messages_count_tokens',
    modelName: messagesModelName,
    prepare: (req, served) => served.preprocessor.validateChat(translateCountTokensRequest(req.body, opts)),
    async run(call, chat) {
      const prepared = await call.served.preprocessor.preprocessChat(chat);
      return { input_tokens: prepared.promptTokens };
    },
  };
}

// GET /v1/models and /v1/models/{id}: the served models with ready workers, as OpenAI lists them;
// DYN_CONTEXT_WINDOW and DYN_MAX_OUTPUT_TOKENS are advertised with each, and what a client may want
// to know before it calls: the APIs the model serves (its card's model types), what it takes in,
// its context length and the output parsers in use, under the names of the worker's card.
import type { ServedModel } from '../../../models/index.js';
import { modelNotReadyError, UnavailableError } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { documented, INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { sendError } from '../server.js';
import type { HttpServiceOptions } from '../service-options.js';

type Advertised = Pick<HttpServiceOptions, 'contextWindow' | 'maxOutputTokens'>;

function modelObject(m: ServedModel, opts: Advertised): Record<string, unknown> {
  const obj: Record<string, unknown> = { id: m.name, object: 'model', created: m.created, owned_by: 'nvidia' };
  const window = opts.contextWindow ?? m.card.contextLength;
  if (window) obj.context_window = window;
  if (opts.maxOutputTokens) obj.max_output_tokens = opts.maxOutputTokens;
  obj.model_type = m.card.modelType;
  obj.model_input = m.card.modelInput;
  obj.context_length = m.card.contextLength;
  obj.tool_call_parser = m.parsers.toolCall;
  obj.reasoning_parser = m.parsers.reasoning;
  obj.default_thinking_mode = m.parsers.defaultThinking;
  return obj;
}

const MODEL_OBJECT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['model'] },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
    context_window: { type: 'integer' },
    max_output_tokens: { type: 'integer' },
    model_type: { type: 'array', items: { type: 'string' }, description: 'the APIs it serves, as its card names them: Chat, Completions, Embedding, Images, Videos, TensorBased' },
    model_input: { type: 'string', description: 'Tokens (this frontend tokenizes), Text (the worker does) or Tensor' },
    context_length: { type: 'integer', description: "the model's context length, from its card" },
    tool_call_parser: { type: ['string', 'null'], description: 'the tool-call parser applied to its output' },
    reasoning_parser: { type: ['string', 'null'], description: 'the reasoning parser applied to its output' },
    default_thinking_mode: { type: ['string', 'null'], description: "the deployment's thinking default (enabled, disabled)" },
  },
};

const MODELS_DOC: RouteDoc = {
  summary: 'List the models with ready workers',
  tag: 'OpenAI',
  responses: {
    200: json('The models', { type: 'object', properties: { object: { type: 'string', enum: ['list'] }, data: { type: 'array', items: MODEL_OBJECT } } }),
    503: INFERENCE_ERRORS[503]!,
  },
};

const MODEL_DOC: RouteDoc = {
  summary: 'One model (its name may contain slashes)',
  tag: 'OpenAI',
  params: { type: 'object', properties: { '*': { type: 'string', description: 'the model name, e.g. Qwen/Qwen3-0.6B' } } },
  responses: { 200: json('The model', MODEL_OBJECT), 404: INFERENCE_ERRORS[404]!, 503: INFERENCE_ERRORS[503]! },
};

export const MODELS_ROUTE: HttpRoute = {
  register(app, path, { state, models, options }) {
    app.get(path, documented(MODELS_DOC), async (_req, reply) => {
      if (state.phase !== 'serving') return sendError(reply, new UnavailableError('Service is not ready'), state.overloadStatus);
      if (!models.startup.ready) return sendError(reply, new UnavailableError(models.startup.reason()), state.overloadStatus);
      return { object: 'list', data: models.listReady().map((m) => modelObject(m, options)) };
    });

    app.get(`${path}/*`, documented(MODEL_DOC), async (req, reply) => {
      try {
        const id = decodeURIComponent((req.params as { '*': string })['*']);
        const m = models.get(id);
        if (m.router.instanceIds.length === 0) {
          throw modelNotReadyError(m.name);
        }
        return modelObject(m, options);
      } catch (err) {
        return sendError(reply, err, state.overloadStatus);
      }
    });
  },
};

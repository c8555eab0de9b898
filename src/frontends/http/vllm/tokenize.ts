// POST /tokenize, vLLM's shape: a prompt, or chat messages rendered by the model's chat template as
// chat completions render them, turned into the model's token ids; nothing is generated. A chat's
// count is the prompt_tokens its chat completion would report.
import type { JsonSchema } from '../../../pipeline/index.js';
import { NotImplementedError, ValidationError, type ChatCompletionRequest, type ModelApi } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { modelRoute, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { bodyObject, modelOf, optionalBool, type Body } from './body-fields.js';

/** What to tokenize: a prompt as it is, or a chat to render first. */
interface TokenizeWork {
  source: { prompt: string } | { chat: ChatCompletionRequest };
  addSpecialTokens: boolean;
  returnTokenStrs: boolean;
}

const PROMPT_API: ModelApi = { type: 'Completions', describe: 'tokenize with a prompt' };
const CHAT_API: ModelApi = { type: 'Chat', describe: 'tokenize with messages' };

const isChat = (body: unknown): boolean => (body as Body | null)?.messages !== undefined;

/** The chat request the messages form stands for: what chat completions would render. */
function chatBody(body: Body): Body {
  if (body.chat_template !== undefined && body.chat_template !== null) {
    throw new NotImplementedError('`chat_template` (a per-request chat template) is not supported; the model\'s own template renders the messages');
  }
  const chat: Body = { model: body.model, messages: body.messages };
  for (const field of ['tools', 'chat_template_kwargs', 'add_generation_prompt', 'continue_final_message']) {
    if (body[field] !== undefined) chat[field] = body[field];
  }
  return chat;
}

const TOKENIZE: ModelRouteSpec<TokenizeWork> = {
  api: (body) => (isChat(body) ? CHAT_API : PROMPT_API),
  endpoint: 'tokenize',
  modelName: (body) => modelOf(bodyObject(body)),
  prepare(req, served) {
    const body = bodyObject(req.body);
    const returnTokenStrs = optionalBool(body, 'return_token_strs', false);
    if (isChat(body)) {
      if (body.prompt !== undefined) throw new ValidationError('`prompt` and `messages` cannot both be given');
      // A chat template writes its own special tokens, so vLLM adds none by default here.
      const addSpecialTokens = optionalBool(body, 'add_special_tokens', false);
      return { source: { chat: served.preprocessor.validateChat(chatBody(body)) }, addSpecialTokens, returnTokenStrs };
    }
    if (typeof body.prompt !== 'string') throw new ValidationError('`prompt` (a string) or `messages` is required');
    return { source: { prompt: body.prompt }, addSpecialTokens: optionalBool(body, 'add_special_tokens', true), returnTokenStrs };
  },
  async run({ served }, work) {
    const { source } = work;
    const text = 'prompt' in source ? source.prompt : await served.preprocessor.renderChat(source.chat);
    const tokens = await served.preprocessor.tokenizeText(text, work.addSpecialTokens);
    return {
      count: tokens.length,
      max_model_len: served.card.contextLength,
      tokens,
      token_strs: work.returnTokenStrs ? served.preprocessor.tokenStrings(tokens) : null,
    };
  },
};

/** A list of token ids, as both tokenizer routes and generate describe it. */
export const TOKEN_IDS: JsonSchema = { type: 'array', items: { type: 'integer', minimum: 0 } };

const TOKENIZE_DOC: RouteDoc = {
  summary: 'Tokenize a prompt or a chat',
  tag: 'Tokenizer',
  description:
    "vLLM's `/tokenize`: `prompt` is tokenized as it is (with the tokenizer's special tokens unless `add_special_tokens` is false); " +
    "`messages` are first rendered by the model's chat template as chat completions render them (no extra special tokens unless asked).",
  body: {
    type: 'object',
    required: ['model'],
    properties: {
      model: { type: 'string' },
      prompt: { type: 'string', description: 'The text to tokenize (instead of `messages`)' },
      messages: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'Chat messages to render and tokenize (instead of `prompt`)' },
      add_special_tokens: { type: 'boolean', description: 'Add the tokenizer\'s special tokens (BOS); default true with `prompt`, false with `messages`' },
      add_generation_prompt: { type: 'boolean', default: true },
      continue_final_message: { type: 'boolean', default: false },
      tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
      chat_template_kwargs: { type: 'object', additionalProperties: true },
      return_token_strs: { type: 'boolean', default: false, description: 'Also answer each token as the vocabulary spells it' },
    },
    example: { model: 'Qwen/Qwen3-0.6B', prompt: 'Hello, world!' },
  },
  responses: {
    200: json('The token ids', {
      type: 'object',
      required: ['count', 'max_model_len', 'tokens'],
      properties: {
        count: { type: 'integer' },
        max_model_len: { type: 'integer' },
        tokens: TOKEN_IDS,
        token_strs: { type: 'array', items: { type: 'string' }, nullable: true },
      },
    }),
    ...INFERENCE_ERRORS,
  },
};

export const TOKENIZE_ROUTE: HttpRoute = modelRoute(TOKENIZE, TOKENIZE_DOC);

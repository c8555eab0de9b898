// POST /detokenize, vLLM's shape: token ids back to text by the model's tokenizer, special tokens kept.
import { ValidationError } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { modelRoute, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { bodyObject, modelOf, tokenIds } from './body-fields.js';
import { TOKEN_IDS } from './tokenize.js';

const DETOKENIZE: ModelRouteSpec<number[]> = {
  api: { type: 'Completions', describe: 'detokenize' },
  endpoint: 'detokenize',
  modelName: (body) => modelOf(bodyObject(body)),
  prepare(req, served) {
    const tokens = tokenIds(bodyObject(req.body), 'tokens', false);
    const unknown = tokens.findIndex((id) => !served.tokenTable.has(id));
    if (unknown >= 0) throw new ValidationError(`\`tokens[${unknown}]\`: token id ${tokens[unknown]} is not in the model's vocabulary`);
    return tokens;
  },
  run: async ({ served }, tokens) => ({ prompt: await served.preprocessor.detokenize(tokens) }),
};

const DETOKENIZE_DOC: RouteDoc = {
  summary: 'Detokenize token ids',
  tag: 'Tokenizer',
  description: "vLLM's `/detokenize`: the ids decoded by the model's tokenizer, special tokens kept.",
  body: {
    type: 'object',
    required: ['model', 'tokens'],
    properties: { model: { type: 'string' }, tokens: TOKEN_IDS },
    example: { model: 'Qwen/Qwen3-0.6B', tokens: [9707, 11, 1879, 0] },
  },
  responses: {
    200: json('The text', { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string' } } }),
    ...INFERENCE_ERRORS,
  },
};

export const DETOKENIZE_ROUTE: HttpRoute = modelRoute(DETOKENIZE, DETOKENIZE_DOC);

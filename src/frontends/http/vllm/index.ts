// vLLM's own routes beside the OpenAI ones: the tokenizer's (/tokenize, /detokenize) and token-in,
// token-out generation; each route in its own file.
import type { HttpRouteName } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { DETOKENIZE_ROUTE } from './detokenize.js';
import { INFERENCE_GENERATE_ROUTE } from './inference-generate.js';
import { TOKENIZE_ROUTE } from './tokenize.js';

export const VLLM_ROUTES = {
  tokenize: TOKENIZE_ROUTE,
  detokenize: DETOKENIZE_ROUTE,
  inferenceGenerate: INFERENCE_GENERATE_ROUTE,
} satisfies Partial<Record<HttpRouteName, HttpRoute>>;

// POST /v1/embeddings (reference/http.md §1.5): inputs tokenized here, one PreprocessedEmbeddingRequest
// to a worker, its vectors answered as floats or as base64 of little-endian float32 (OpenAI's shape).
import { validateEmbeddingRequest, type EmbeddingRequest, type JsonSchema } from '../../../pipeline/index.js';
import { InternalError, type EmbeddingsEngineOutput } from '../../../protocols/index.js';
import type { HttpRoute } from '../http-route.js';
import { modelRoute, namedModel, onlyOutput, type ModelCall, type ModelRouteSpec } from '../model-route/index.js';
import { INFERENCE_ERRORS, json, type RouteDoc } from '../openapi/index.js';
import { MODEL } from './media-schemas.js';

function toBase64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

function fromBase64(b64: string): number[] {
  const bytes = Buffer.from(b64, 'base64');
  const out = new Array<number>(bytes.length >> 2);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

/** A worker's vector (floats, or base64 as some workers send) in the encoding the client asked for. */
function encoded(vector: number[] | string, format: EmbeddingRequest['encodingFormat']): number[] | string {
  if (typeof vector === 'string') return format === 'base64' ? vector : fromBase64(vector);
  return format === 'base64' ? toBase64(vector) : vector;
}

function checkOutput(out: EmbeddingsEngineOutput, inputs: number): void {
  if (!Array.isArray(out.embeddings) || out.embeddings.length !== inputs) {
    throw new InternalError(`the worker answered ${Array.isArray(out.embeddings) ? out.embeddings.length : 'no'} embeddings for ${inputs} inputs`);
  }
}

async function embed({ served, requestId, request, signal }: ModelCall, checked: EmbeddingRequest): Promise<unknown> {
  const { request: wire, promptTokens } = await served.preprocessor.preprocessEmbedding(checked);
  const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
  request.usageFrom({ usage: () => ({ ...usage, completion_tokens: 0 }) });
  const out = await onlyOutput(served.media.embeddings.generate(wire, { requestId, signal }), 'embeddings');
  checkOutput(out, wire.token_ids.length);
  return {
    object: 'list',
    data: out.embeddings.map((vector, index) => ({ object: 'embedding', index, embedding: encoded(vector, checked.encodingFormat) })),
    model: checked.model,
    usage,
  };
}

const EMBEDDINGS: ModelRouteSpec<EmbeddingRequest> = {
  api: { type: 'Embedding', describe: 'embeddings' },
  endpoint: 'embeddings',
  modelName: (body) => namedModel(body, validateEmbeddingRequest),
  prepare: (req) => validateEmbeddingRequest(req.body),
  run: embed,
};

const EMBEDDINGS_BODY: JsonSchema = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: MODEL,
    input: {
      description: 'A string, strings, token ids, or lists of token ids',
      oneOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: { type: 'integer' } },
        { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      ],
    },
    encoding_format: { type: 'string', enum: ['float', 'base64'], default: 'float' },
    dimensions: { type: 'integer', minimum: 1 },
    user: { type: 'string' },
  },
  example: { model: 'my-embedding-model', input: ['first text', 'second text'] },
};

const EMBEDDINGS_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          object: { type: 'string', enum: ['embedding'] },
          index: { type: 'integer' },
          embedding: { description: 'floats, or base64 of little-endian float32', oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }] },
        },
      },
    },
    model: { type: 'string' },
    usage: { type: 'object', properties: { prompt_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } } },
  },
};

const EMBEDDINGS_DOC: RouteDoc = {
  summary: 'Create embeddings',
  tag: 'OpenAI',
  description: 'Vectors for each input, from a model of type Embedding.',
  body: EMBEDDINGS_BODY,
  responses: { 200: json('The embeddings, in input order', EMBEDDINGS_ANSWER), ...INFERENCE_ERRORS },
};

export const EMBEDDINGS_ROUTE: HttpRoute = modelRoute(EMBEDDINGS, EMBEDDINGS_DOC);

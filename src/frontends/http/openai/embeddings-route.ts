// POST /v1/embeddings (reference/http.md §1.5): inputs tokenized here, one PreprocessedEmbeddingRequest
// to a worker, its vectors answered as floats or as base64 of little-endian float32 (OpenAI's shape).
import { validateEmbeddingRequest, type EmbeddingRequest } from '../../../pipeline/index.js';
import { InternalError, type EmbeddingsEngineOutput } from '../../../protocols/index.js';
import { namedModel, onlyOutput, type ModelCall, type ModelRouteSpec } from '../model-route/index.js';

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

export const EMBEDDINGS_ROUTE: ModelRouteSpec<EmbeddingRequest> = {
  api: 'embeddings',
  endpoint: 'embeddings',
  modelName: (body) => namedModel(body, validateEmbeddingRequest),
  prepare: (req) => validateEmbeddingRequest(req.body),
  run: embed,
};

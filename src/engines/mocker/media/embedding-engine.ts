// The mocker's embedding model: each token id owns a fixed pseudo-random direction and an input's
// vector is the normalized sum of its tokens' directions. Equal inputs give equal vectors, inputs
// that share tokens point the same way (cosine similarity tracks token overlap), and every vector
// has unit norm, as real embedding models' outputs do.
import type { EmbeddingsEngineOutput, GenerateContext, PreprocessedEmbeddingRequest } from '../../../protocols/index.js';
import { seededUint32 } from './seeded.js';

/** Vector size when the request names no `dimensions`. */
export const DEFAULT_EMBEDDING_DIMENSIONS = 256;

/** Maps a uint32 to [-1, 1). */
const TO_UNIT = 2 / 2 ** 32;

export function embedTokens(tokenIds: readonly number[], dimensions: number): number[] {
  const sum = new Float64Array(dimensions);
  for (const id of tokenIds) {
    const next = seededUint32(Math.imul(id + 1, 0x9e3779b1));
    for (let d = 0; d < dimensions; d++) sum[d]! += next() * TO_UNIT - 1;
  }
  let norm = 0;
  for (let d = 0; d < dimensions; d++) norm += sum[d]! * sum[d]!;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const out = new Array<number>(dimensions);
  for (let d = 0; d < dimensions; d++) out[d] = sum[d]! * scale;
  return out;
}

export class MockEmbeddingEngine {
  constructor(private readonly defaultDimensions = DEFAULT_EMBEDDING_DIMENSIONS) {}

  async *generate(request: PreprocessedEmbeddingRequest, _ctx: GenerateContext): AsyncGenerator<EmbeddingsEngineOutput> {
    const dimensions = request.dimensions ?? this.defaultDimensions;
    const promptTokens = request.token_ids.reduce((sum, ids) => sum + ids.length, 0);
    yield {
      embeddings: request.token_ids.map((ids) => embedTokens(ids, dimensions)),
      prompt_tokens: promptTokens,
      total_tokens: promptTokens,
    };
  }
}

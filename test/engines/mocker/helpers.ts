// Shared fixtures for the mocker tests: the Qwen3-backed vocabulary and request builders.
import type { LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { MockerEngine, buildMockVocabulary, type MockerEngineOptions, type MockVocabulary } from '../../../src/engines/mocker/index.js';
import { loadQwen3Source } from './qwen3-vocab-source.js';

const qwen = loadQwen3Source();
export const source = qwen.source;
export const EOS_ID = qwen.eosId;
export const vocab: MockVocabulary = buildMockVocabulary(source);

export interface RequestShape {
  maxTokens?: number;
  minTokens?: number;
  seed?: number;
  ignoreEos?: boolean;
  stopTokenIds?: number[];
  eos?: boolean;
}

/** A prompt of `n` distinct-looking token ids, varied by `salt`. */
export function prompt(n: number, salt = 0): number[] {
  return Array.from({ length: n }, (_, i) => 1000 + ((i * 31 + salt * 977) % 50000));
}

export function request(tokens: number[], shape: RequestShape = {}): PreprocessedRequest {
  return {
    model: 'mock',
    token_ids: tokens,
    stop_conditions: {
      max_tokens: shape.maxTokens ?? null,
      min_tokens: shape.minTokens ?? null,
      ignore_eos: shape.ignoreEos ?? null,
      stop_token_ids: shape.stopTokenIds ?? null,
    },
    sampling_options: { seed: shape.seed ?? null },
    output_options: {},
    eos_token_ids: shape.eos === false ? [] : [EOS_ID],
  };
}

let nextId = 0;

export async function collect(
  engine: MockerEngine,
  req: PreprocessedRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<LLMEngineOutput[]> {
  const outs: LLMEngineOutput[] = [];
  for await (const out of engine.generate(req, { requestId: `r${nextId++}`, signal })) outs.push(out);
  return outs;
}

export const ids = (outs: LLMEngineOutput[]): number[] => outs.flatMap((o) => o.token_ids);

export function fastEngine(options: Partial<MockerEngineOptions> = {}): MockerEngine {
  return new MockerEngine({ vocab, speedupRatio: 1e6, ...options });
}

/** Concatenated bytes of non-special tokens, decoded strictly (throws on invalid UTF-8). */
export function decodeStrict(tokenIds: number[]): string {
  const parts: Uint8Array[] = [];
  for (const id of tokenIds) {
    if (source.specialIds.has(id)) continue;
    parts.push(source.tokenBytes(id)!);
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts));
}

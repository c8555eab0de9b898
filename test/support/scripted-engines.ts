import type { EngineClient, LLMEngineOutput, PreprocessedRequest } from '../../src/protocols/index.js';

// Token ids of the default (Qwen3) tokenizer.
export const HELLO = 9707;
export const WORLD = 1879;

/** Answers "Hello world" and stops, or stops at max_tokens when that is smaller; keeps every request it was given. */
export function helloWorldEngine(seen: PreprocessedRequest[]): EngineClient {
  return {
    async *generate(request): AsyncGenerator<LLMEngineOutput> {
      seen.push(request);
      const max = request.stop_conditions.max_tokens ?? 2;
      yield { token_ids: [HELLO], finish_reason: max <= 1 ? 'length' : null };
      if (max > 1) yield { token_ids: [WORLD], finish_reason: max === 2 ? 'length' : 'stop' };
    },
  };
}

/** Answers "Hello", then fails with an error whose text must never reach a client. */
export function failingAfterHelloEngine(): EngineClient {
  return {
    async *generate(): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [HELLO] };
      throw new Error('disk /srv/secret failed');
    },
  };
}

/** A preprocessed request for `tokenIds`, stopping at `maxTokens`. */
export function tokensRequest(tokenIds: number[], maxTokens: number): PreprocessedRequest {
  return { model: 'm', token_ids: tokenIds, stop_conditions: { max_tokens: maxTokens }, sampling_options: {}, output_options: {}, eos_token_ids: [] };
}

// An upstream answer's piece → one engine output, per input mode. Token-in, the frontend keeps
// detokenizing, stop handling and parsing: outputs carry token ids, the server's own when it returns
// them, else its text re-tokenized. Text-in, the engine decoded and parsed: outputs carry its text,
// reasoning, tool calls and logprobs as they are, with ids only to count the tokens.
import type { LLMEngineOutput } from '../../protocols/index.js';
import type { UpstreamPiece } from './upstream-chunk.js';

/** What the engine is sent: prompt token ids, or text (the chat's messages or the prompt's text). */
export type UpstreamInput = 'tokens' | 'text';

/** The model's tokenizer, from the launcher (engines do not import the pipeline). */
export interface BridgeTokenizer {
  encode(text: string): Promise<number[]>;
  /** The ids now when the tokenizer can give them on the calling thread (else null: `encode`). */
  encodeNow?(text: string): number[] | null;
  decode(ids: readonly number[]): Promise<string>;
}

/** One engine output of a piece (a streamed chunk, or a whole answer), per input mode; a promise only when the tokenizer must work off the calling thread. */
type Output = (piece: UpstreamPiece, tokenizer: BridgeTokenizer) => LLMEngineOutput | Promise<LLMEngineOutput>;

export const OUTPUTS: Readonly<Record<UpstreamInput, Output>> = {
  tokens: tokenOutput,
  text: textOutput,
};

/** `text` re-tokenized: now when the tokenizer can, else on its promise. */
function withIds(text: string, tokenizer: BridgeTokenizer, then: (ids: number[]) => LLMEngineOutput): LLMEngineOutput | Promise<LLMEngineOutput> {
  if (text === '') return then([]);
  const now = tokenizer.encodeNow?.(text);
  return now ? then(now) : tokenizer.encode(text).then(then);
}

/** Token-in: the server's ids, or its text re-tokenized, for the frontend to decode. */
function tokenOutput(piece: UpstreamPiece, tokenizer: BridgeTokenizer): LLMEngineOutput | Promise<LLMEngineOutput> {
  const out = (ids: number[]): LLMEngineOutput => {
    const o: LLMEngineOutput = { token_ids: ids };
    // Logprobs line up with ids only when the server gave both.
    if (piece.tokenIds && piece.logProbs && piece.logProbs.length === ids.length) {
      o.log_probs = piece.logProbs;
      if (piece.topLogprobs?.length === ids.length) o.top_logprobs = piece.topLogprobs;
    }
    return withEnd(o, piece);
  };
  return piece.tokenIds ? out(piece.tokenIds) : withIds(piece.text, tokenizer, out);
}

/**
 * Text-in: the engine's text as it is (it applied stop strings and its parsers). The ids count the
 * step's tokens: the server's own, else everything it wrote re-tokenized (for a completions prompt,
 * exactly its text, so a moved request continues after it).
 */
function textOutput(piece: UpstreamPiece, tokenizer: BridgeTokenizer): LLMEngineOutput | Promise<LLMEngineOutput> {
  const out = (ids: number[]): LLMEngineOutput => {
    const o: LLMEngineOutput = { token_ids: ids, text: piece.text };
    if (piece.reasoning) o.reasoning_content = piece.reasoning;
    if (piece.toolCalls) o.tool_calls = piece.toolCalls;
    if (piece.tokenTexts && piece.logProbs?.length === piece.tokenTexts.length) {
      o.tokens = piece.tokenTexts;
      o.log_probs = piece.logProbs;
      if (piece.topLogprobs?.length === piece.tokenTexts.length) o.top_logprobs = piece.topLogprobs;
    }
    return withEnd(o, piece);
  };
  if (piece.tokenIds) return out(piece.tokenIds);
  return withIds(piece.reasoning + piece.text + (piece.toolCalls?.map((c) => (c.name ?? '') + c.arguments).join('') ?? ''), tokenizer, out);
}

function withEnd(out: LLMEngineOutput, piece: UpstreamPiece): LLMEngineOutput {
  if (piece.finish) {
    out.finish_reason = piece.finish;
    out.stop_reason = piece.stopReason;
  }
  if (piece.usage) out.completion_usage = piece.usage;
  return out;
}

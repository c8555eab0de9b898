// The engine's per-token logprob fields (`log_probs`, `top_logprobs`) turned into one entry per
// generated token, the way upstream's delta generators read them: tokens, ids and logprobs are
// zipped (a local stop can leave fewer processed tokens than ids), a hidden stop token reads as ""
// without bytes, and the sampled token joins its alternatives when the engine left it out.

import type { TopLogprob } from '../../protocols/index.js';
import type { TokenTable } from './token-table.js';

export interface LogprobAlternative {
  token: string;
  logprob: number;
  /** UTF-8 bytes of the token; null for a token with no text. */
  bytes: number[] | null;
}

export interface TokenLogprob extends LogprobAlternative {
  /** The most likely tokens at this position, best first. */
  top: LogprobAlternative[];
  /** Where the token starts in the choice's text, in characters (completions `text_offset`); set by the fold. */
  textOffset: number;
}

const encoder = new TextEncoder();

function utf8Bytes(token: string): number[] | null {
  return token.length === 0 ? null : Array.from(encoder.encode(token));
}

/**
 * One entry per processed token that has a logprob. The sampled token's bytes are its raw bytes
 * from the token table, so a character split over two tokens is still reconstructible.
 */
export function tokenLogprobs(
  tokens: readonly (string | null)[],
  ids: readonly number[],
  logProbs: readonly number[],
  topLogprobs: readonly (readonly TopLogprob[])[] | null,
  table: TokenTable,
): TokenLogprob[] {
  const count = Math.min(tokens.length, ids.length, logProbs.length);
  const entries: TokenLogprob[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const piece = tokens[i];
    const id = ids[i]!;
    const token = piece ?? '';
    const raw = piece === null ? null : table.tokenBytes(id);
    const bytes = raw ? Array.from(raw) : piece === null ? null : utf8Bytes(token);
    const logprob = logProbs[i]!;
    const alternatives = topLogprobs?.[i];
    entries[i] = { token, logprob, bytes, top: alternatives ? topEntries(alternatives, id, token, logprob, table) : [], textOffset: 0 };
  }
  return entries;
}

/**
 * Entries of tokens the engine decoded itself and names by their text (a text-in bridge): bytes
 * are the text's UTF-8 (as vLLM writes them), and the alternatives are the engine's as given.
 */
export function decodedTokenLogprobs(
  tokens: readonly (string | null)[],
  logProbs: readonly number[],
  topLogprobs: readonly (readonly TopLogprob[])[] | null,
): TokenLogprob[] {
  const count = Math.min(tokens.length, logProbs.length);
  const entries: TokenLogprob[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const token = tokens[i] ?? '';
    entries[i] = { token, logprob: logProbs[i]!, bytes: utf8Bytes(token), top: topLogprobs?.[i]?.map(alternativeOf) ?? [], textOffset: 0 };
  }
  return entries;
}

function alternativeOf(alt: TopLogprob): LogprobAlternative {
  const token = alt.token ?? '';
  return { token, logprob: alt.logprob, bytes: alt.bytes ?? utf8Bytes(token) };
}

const utf8 = new TextDecoder();

/** An alternative the engine named by id only (a token-in bridge): its text and bytes from the table. */
function namedAlternative(alt: TopLogprob, table: TokenTable): LogprobAlternative {
  const raw = alt.token === null ? table.tokenBytes(alt.token_id) : null;
  return raw ? { token: utf8.decode(raw), logprob: alt.logprob, bytes: Array.from(raw) } : alternativeOf(alt);
}

function topEntries(
  alternatives: readonly TopLogprob[],
  sampledId: number,
  sampledToken: string,
  sampledLogprob: number,
  table: TokenTable,
): LogprobAlternative[] {
  const top = alternatives.map((alt) => namedAlternative(alt, table));
  if (!alternatives.some((alt) => alt.token_id === sampledId)) top.push({ token: sampledToken, logprob: sampledLogprob, bytes: utf8Bytes(sampledToken) });
  return top;
}

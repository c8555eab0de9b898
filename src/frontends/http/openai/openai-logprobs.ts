// The fold's per-token logprob entries in OpenAI's two wire shapes: chat's `logprobs.content[]`
// and the legacy completions object of parallel arrays.
import type { TokenLogprob } from '../../../pipeline/index.js';

export interface ChatLogprobs {
  content: { token: string; logprob: number; bytes: number[] | null; top_logprobs: { token: string; logprob: number; bytes: number[] | null }[] }[];
  refusal: null;
}

export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: number[];
  /** One object per token: alternative text → logprob. */
  top_logprobs: Record<string, number>[];
  text_offset: number[];
}

export function chatLogprobs(entries: readonly TokenLogprob[]): ChatLogprobs {
  return {
    content: entries.map((e) => ({ token: e.token, logprob: e.logprob, bytes: e.bytes, top_logprobs: e.top })),
    refusal: null,
  };
}

export function completionLogprobs(entries: readonly TokenLogprob[]): CompletionLogprobs {
  const out: CompletionLogprobs = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
  for (const e of entries) {
    out.tokens.push(e.token);
    out.token_logprobs.push(e.logprob);
    const top: Record<string, number> = {};
    for (const alt of e.top) top[alt.token] ??= alt.logprob;
    out.top_logprobs.push(top);
    out.text_offset.push(e.textOffset);
  }
  return out;
}

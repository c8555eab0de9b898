// One streamed chunk of an OpenAI-compatible server → what the bridge forwards: the choice's text,
// its token ids when the server sent them (vLLM's `token_ids`, or logprob tokens written as
// `token_id:N`), logprobs, the finish and the usage.
import type { CompletionUsage, EngineFinishReason, TopLogprob } from '../../protocols/index.js';
import type { UpstreamApi } from './upstream-request.js';

export interface UpstreamPiece {
  text: string;
  /** The generated ids, when the server reported them; null when only text came back. */
  tokenIds: number[] | null;
  logProbs: number[] | null;
  topLogprobs: TopLogprob[][] | null;
  finish: EngineFinishReason | null;
  stopReason: string | number | null;
  usage: CompletionUsage | null;
}

interface CompletionsLogprobs {
  tokens?: string[];
  token_logprobs?: (number | null)[];
  top_logprobs?: (Record<string, number> | null)[] | null;
}

interface UpstreamChoice {
  text?: string;
  delta?: { content?: string | null };
  token_ids?: number[] | null;
  logprobs?: CompletionsLogprobs | null;
  finish_reason?: string | null;
  stop_reason?: string | number | null;
}

export interface UpstreamChunkJson {
  choices?: UpstreamChoice[];
  usage?: CompletionUsage | null;
  /** vLLM writes `{"error": {...}}` as an event when generation fails. */
  error?: unknown;
}

/** OpenAI finish reasons → the engine's. `stop` without a stop reason is the model's own end (EOS). */
const FINISHES: Readonly<Record<string, (stopReason: string | number | null) => EngineFinishReason>> = {
  stop: (reason) => (reason === null ? 'eos' : 'stop'),
  eos: () => 'eos',
  length: () => 'length',
  tool_calls: () => 'eos',
  function_call: () => 'eos',
  content_filter: () => 'content_filter',
  abort: () => 'cancelled',
  cancelled: () => 'cancelled',
  error: () => 'error',
};

const TOKEN_ID = /^token_id:(-?\d+)$/;

/** One parsed `data:` payload; null for a chunk that carries nothing of the choice (e.g. a role-only delta). */
export function readChunk(json: UpstreamChunkJson, api: UpstreamApi): UpstreamPiece | null {
  const choice = json.choices?.[0];
  const usage = json.usage ?? null;
  if (!choice) return usage ? { ...EMPTY, usage } : null;
  const text = (api === 'chat' ? choice.delta?.content : choice.text) ?? '';
  const stopReason = choice.stop_reason ?? null;
  const finishName = choice.finish_reason ?? null;
  const lp = api === 'completions' ? choice.logprobs ?? null : null;
  return {
    text,
    tokenIds: choice.token_ids ?? idsOfLogprobTokens(lp?.tokens),
    logProbs: lp?.token_logprobs ? lp.token_logprobs.map((v) => v ?? -Infinity) : null,
    topLogprobs: topLogprobsOf(lp?.top_logprobs),
    finish: finishName === null ? null : (FINISHES[finishName] ?? FINISHES.stop!)(stopReason),
    stopReason,
    usage,
  };
}

const EMPTY: UpstreamPiece = { text: '', tokenIds: [], logProbs: null, topLogprobs: null, finish: null, stopReason: null, usage: null };

function idsOfLogprobTokens(tokens: string[] | undefined): number[] | null {
  if (!tokens || tokens.length === 0) return null;
  const ids: number[] = [];
  for (const token of tokens) {
    const m = TOKEN_ID.exec(token);
    if (!m) return null;
    ids.push(Number(m[1]));
  }
  return ids;
}

/** `{"token_id:N": logprob}` per position → ranked alternatives; null when the keys are not ids. */
function topLogprobsOf(top: (Record<string, number> | null)[] | null | undefined): TopLogprob[][] | null {
  if (!top) return null;
  const out: TopLogprob[][] = [];
  for (const entry of top) {
    const ranked: TopLogprob[] = [];
    for (const [key, logprob] of Object.entries(entry ?? {})) {
      const m = TOKEN_ID.exec(key);
      if (!m) return null;
      ranked.push({ rank: 0, token_id: Number(m[1]), token: null, logprob });
    }
    ranked.sort((a, b) => b.logprob - a.logprob).forEach((t, i) => (t.rank = i + 1));
    out.push(ranked);
  }
  return out;
}

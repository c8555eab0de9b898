// One streamed chunk of an OpenAI-compatible server, or its whole non-streamed answer (the same
// fields, a chat's `message` in place of its `delta`) → what the bridge forwards: the choice's
// text, its token ids when the server sent them (vLLM's `token_ids`, or logprob tokens written as
// `token_id:N`), logprobs, the finish and the usage; from a chat answer also the reasoning and the
// tool calls the engine's own parsers split off.
import type { CompletionUsage, EngineFinishReason, ToolCallDelta, TopLogprob } from '../../protocols/index.js';
import type { UpstreamApi } from './upstream-request.js';

export interface UpstreamPiece {
  text: string;
  /** Reasoning the engine split off (chat `reasoning_content`, or `reasoning`); "" when none. */
  reasoning: string;
  /** Tool-call pieces the engine parsed; null when none. */
  toolCalls: ToolCallDelta[] | null;
  /** The generated ids, when the server reported them; null when only text came back. */
  tokenIds: number[] | null;
  /** The generated tokens' texts, when the server's logprobs name them by text. */
  tokenTexts: string[] | null;
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

interface ChatLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
}

interface ChatLogprobs {
  content?: (ChatLogprob & { top_logprobs?: ChatLogprob[] | null })[] | null;
}

interface UpstreamToolCall {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface ChatDelta {
  content?: string | null;
  /** vLLM and SGLang name it `reasoning_content`; newer vLLM `reasoning`. */
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: UpstreamToolCall[] | null;
}

interface UpstreamChoice {
  text?: string;
  delta?: ChatDelta;
  /** A whole chat answer's (its tool calls without `index`: their position is it). */
  message?: ChatDelta;
  token_ids?: number[] | null;
  logprobs?: (CompletionsLogprobs & ChatLogprobs) | null;
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

/** How each API's choice carries its text, ids and logprobs (finish, stop reason and usage are the caller's). */
const PARTS: Readonly<Record<UpstreamApi, (choice: UpstreamChoice, usage: CompletionUsage | null) => UpstreamPiece>> = {
  completions: completionParts,
  chat: chatParts,
};

/** One parsed `data:` payload or whole answer; null for a chunk that carries nothing of the choice (e.g. a role-only delta). */
export function readChunk(json: UpstreamChunkJson, api: UpstreamApi): UpstreamPiece | null {
  const choice = json.choices?.[0];
  const usage = json.usage ?? null;
  if (!choice) return usage ? { ...EMPTY, usage } : null;
  const piece = PARTS[api](choice, usage);
  if (choice.token_ids) piece.tokenIds = choice.token_ids;
  const stopReason = choice.stop_reason ?? null;
  const finishName = choice.finish_reason ?? null;
  if (finishName !== null) piece.finish = (FINISHES[finishName] ?? FINISHES.stop!)(stopReason);
  piece.stopReason = stopReason;
  return piece;
}

function completionParts(choice: UpstreamChoice, usage: CompletionUsage | null): UpstreamPiece {
  const lp = choice.logprobs ?? null;
  const ids = lp ? idsOfLogprobTokens(lp.tokens) : null;
  return {
    text: choice.text ?? '',
    reasoning: '',
    toolCalls: null,
    tokenIds: ids,
    tokenTexts: ids === null && lp?.tokens?.length ? lp.tokens : null,
    logProbs: lp?.token_logprobs ? lp.token_logprobs.map((v) => v ?? -Infinity) : null,
    topLogprobs: lp ? topLogprobsOf(lp.top_logprobs) : null,
    finish: null,
    stopReason: null,
    usage,
  };
}

/** Chat's `logprobs.content` names the tokens by text, one entry per generated token. */
function chatParts(choice: UpstreamChoice, usage: CompletionUsage | null): UpstreamPiece {
  const delta = choice.delta ?? choice.message ?? {};
  const content = choice.logprobs?.content ?? null;
  return {
    text: delta.content ?? '',
    reasoning: delta.reasoning_content ?? delta.reasoning ?? '',
    toolCalls: delta.tool_calls?.length ? delta.tool_calls.map(toolCallPiece) : null,
    tokenIds: null,
    tokenTexts: content ? content.map((e) => e.token) : null,
    logProbs: content ? content.map((e) => e.logprob) : null,
    topLogprobs: content ? content.map((e) => (e.top_logprobs ?? []).map(namedByText)) : null,
    finish: null,
    stopReason: null,
    usage,
  };
}

function toolCallPiece(call: UpstreamToolCall, position: number): ToolCallDelta {
  const piece: ToolCallDelta = { index: call.index ?? position, arguments: call.function?.arguments ?? '' };
  if (call.id) piece.id = call.id;
  if (call.function?.name) piece.name = call.function.name;
  return piece;
}

function namedByText(alt: ChatLogprob, i: number): TopLogprob {
  return { rank: i + 1, token_id: -1, token: alt.token, logprob: alt.logprob, bytes: alt.bytes ?? null };
}

const EMPTY: UpstreamPiece = {
  text: '',
  reasoning: '',
  toolCalls: null,
  tokenIds: [],
  tokenTexts: null,
  logProbs: null,
  topLogprobs: null,
  finish: null,
  stopReason: null,
  usage: null,
};

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

/** `{token: logprob}` per position → ranked alternatives, named by id where the key is `token_id:N`, else by text. */
function topLogprobsOf(top: (Record<string, number> | null)[] | null | undefined): TopLogprob[][] | null {
  if (!top) return null;
  return top.map((entry) =>
    Object.entries(entry ?? {})
      .map(([key, logprob]): TopLogprob => {
        const m = TOKEN_ID.exec(key);
        return m ? { rank: 0, token_id: Number(m[1]), token: null, logprob } : { rank: 0, token_id: -1, token: key, logprob };
      })
      .sort((a, b) => b.logprob - a.logprob)
      .map((t, i) => ({ ...t, rank: i + 1 })),
  );
}

// An OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, another dynamo-ts) as an
// EngineClient: each request becomes one streamed upstream call, each chunk one engine output.
// Token-in, the frontend keeps detokenizing, stop handling and parsing: outputs carry token ids,
// the server's own when it returns them, else its text re-tokenized piece by piece. Text-in, the
// engine decoded and parsed: outputs carry its text, reasoning, tool calls and logprobs as they
// are, with ids only to count the tokens.
import { isDynamoError, type EngineClient, type GenerateContext, type LLMEngineOutput, type PreprocessedRequest } from '../../protocols/index.js';
import { sseData } from './sse-lines.js';
import { readChunk, type UpstreamChunkJson, type UpstreamPiece } from './upstream-chunk.js';
import { streamedError, upstreamLost, upstreamStatusError } from './upstream-errors.js';
import { textCall, tokenCompletionsCall, type UpstreamCall } from './upstream-request.js';

/** What the engine is sent: prompt token ids, or text (the chat's messages or the prompt's text). */
export type UpstreamInput = 'tokens' | 'text';

/** The model's tokenizer, from the launcher (engines do not import the pipeline). */
export interface BridgeTokenizer {
  encode(text: string): Promise<number[]>;
  decode(ids: readonly number[]): Promise<string>;
}

export interface BridgeEngineOptions {
  /** The server's base URL, e.g. `http://10.0.0.5:8000` (a trailing `/v1` is accepted). */
  url: string;
  /** The model name the server knows. */
  model: string;
  input: UpstreamInput;
  tokenizer: BridgeTokenizer;
  /** Extra request headers, e.g. `authorization`. */
  headers?: Readonly<Record<string, string>>;
  /** How long the server may take to answer a request's headers. */
  responseTimeoutMs: number;
}

const CALLS: Readonly<Record<UpstreamInput, (req: PreprocessedRequest, o: BridgeEngineOptions) => Promise<UpstreamCall>>> = {
  tokens: async (req, o) => tokenCompletionsCall(req, o.model),
  text: async (req, o) => textCall(req, o.model, Array.isArray(req.extra_args?.messages) ? '' : await o.tokenizer.decode(req.token_ids)),
};

/**
 * vLLM's extensions that only ask for more in the answer. A server that refuses one by name (a 400
 * naming it) is asked again without it, and never sent it again: it answers text, re-tokenized here.
 */
const OPTIONAL_FIELDS = ['return_token_ids', 'return_tokens_as_token_ids'] as const;

export class OpenAiBridgeEngine implements EngineClient {
  readonly baseUrl: string;
  /** Optional fields this upstream refused. */
  private readonly refused = new Set<string>();

  constructor(readonly options: BridgeEngineOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
  }

  /**
   * Streams the upstream's answer. Aborting ctx.signal (or leaving the loop) aborts the upstream
   * request. A 4xx throws its typed error; a 5xx, a lost connection or a stream cut before its
   * finish throws WorkerLostError.
   */
  async *generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
    const call = await CALLS[this.options.input](request, this.options);
    const abort = new AbortController();
    const onAbort = (): void => abort.abort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const body = await this.post(call, abort, ctx.signal);
      if (!body) return;
      let held: LLMEngineOutput | null = null;
      try {
        for await (const data of sseData(body)) {
          const json = JSON.parse(data) as UpstreamChunkJson;
          if (json.error !== undefined) throw streamedError(this.baseUrl, json.error);
          const piece = readChunk(json, call.api);
          if (!piece) continue;
          if (held) {
            // The finish came first; usage follows in its own chunk (stream_options.include_usage).
            if (piece.usage) held.completion_usage = piece.usage;
            continue;
          }
          const out = await OUTPUTS[this.options.input](piece, this.options.tokenizer);
          if (out.finish_reason) held = out;
          else if (out.token_ids.length > 0 || out.text || out.reasoning_content || out.tool_calls) yield out;
        }
      } catch (err) {
        if (ctx.signal.aborted) return;
        if (err instanceof Error && err.name === 'SyntaxError') throw upstreamLost(this.baseUrl, `sent a malformed event: ${err.message}`);
        if (isDynamoError(err)) throw err;
        throw upstreamLost(this.baseUrl, `dropped the stream: ${(err as Error).message}`);
      }
      if (ctx.signal.aborted) return;
      if (!held) throw upstreamLost(this.baseUrl, 'ended the stream before a finish reason');
      yield held;
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      abort.abort();
    }
  }

  /** The response body once the headers are in; null when the caller gave up first. */
  private async post(call: UpstreamCall, abort: AbortController, callerSignal: AbortSignal, retryReset = true): Promise<AsyncIterable<Uint8Array> | null> {
    const timer = setTimeout(() => abort.abort(new Error('timeout')), this.options.responseTimeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${call.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...this.options.headers },
        body: JSON.stringify(call.body, (key, value: unknown) => (this.refused.has(key) ? undefined : value)),
        signal: abort.signal,
      });
    } catch (err) {
      if (callerSignal.aborted) return null;
      if (abort.signal.aborted) throw upstreamLost(this.baseUrl, `did not answer within ${this.options.responseTimeoutMs} ms`);
      // A kept-alive connection the server closed while idle fails the next request before any
      // answer; one try on a fresh connection tells that apart from a server that is gone.
      if (retryReset && CONNECTION_RESETS.has(causeOf(err))) return this.post(call, abort, callerSignal, false);
      throw upstreamLost(this.baseUrl, `is unreachable: ${causeOf(err)}`);
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      const refused = res.status === 400 ? OPTIONAL_FIELDS.filter((f) => call.body[f] !== undefined && text.includes(f)) : [];
      if (refused.length === 0) throw upstreamStatusError(this.baseUrl, res.status, text);
      for (const field of refused) this.refused.add(field);
      return this.post(call, abort, callerSignal);
    }
    if (!res.body) throw upstreamLost(this.baseUrl, 'answered without a body');
    return res.body;
  }
}

/** One engine output of a chunk, per input mode. */
const OUTPUTS: Readonly<Record<UpstreamInput, (piece: UpstreamPiece, tokenizer: BridgeTokenizer) => Promise<LLMEngineOutput>>> = {
  tokens: tokenOutput,
  text: textOutput,
};

/** Token-in: the server's ids, or its text re-tokenized, for the frontend to decode. */
async function tokenOutput(piece: UpstreamPiece, tokenizer: BridgeTokenizer): Promise<LLMEngineOutput> {
  const ids = piece.tokenIds ?? (piece.text === '' ? [] : await tokenizer.encode(piece.text));
  const out: LLMEngineOutput = { token_ids: ids };
  // Logprobs line up with ids only when the server gave both.
  if (piece.tokenIds && piece.logProbs && piece.logProbs.length === ids.length) {
    out.log_probs = piece.logProbs;
    if (piece.topLogprobs?.length === ids.length) out.top_logprobs = piece.topLogprobs;
  }
  return withEnd(out, piece);
}

/**
 * Text-in: the engine's text as it is (it applied stop strings and its parsers). The ids count the
 * step's tokens: the server's own, else everything it wrote re-tokenized (for a completions prompt,
 * exactly its text, so a moved request continues after it).
 */
async function textOutput(piece: UpstreamPiece, tokenizer: BridgeTokenizer): Promise<LLMEngineOutput> {
  const written = piece.reasoning + piece.text + (piece.toolCalls?.map((c) => (c.name ?? '') + c.arguments).join('') ?? '');
  const ids = piece.tokenIds ?? (written === '' ? [] : await tokenizer.encode(written));
  const out: LLMEngineOutput = { token_ids: ids, text: piece.text };
  if (piece.reasoning) out.reasoning_content = piece.reasoning;
  if (piece.toolCalls) out.tool_calls = piece.toolCalls;
  if (piece.tokenTexts && piece.logProbs?.length === piece.tokenTexts.length) {
    out.tokens = piece.tokenTexts;
    out.log_probs = piece.logProbs;
    if (piece.topLogprobs?.length === piece.tokenTexts.length) out.top_logprobs = piece.topLogprobs;
  }
  return withEnd(out, piece);
}

function withEnd(out: LLMEngineOutput, piece: UpstreamPiece): LLMEngineOutput {
  if (piece.finish) {
    out.finish_reason = piece.finish;
    out.stop_reason = piece.stopReason;
  }
  if (piece.usage) out.completion_usage = piece.usage;
  return out;
}

/** undici hides the socket error in `cause`. */
/** Errors of a connection closed under a request, before its answer began. */
const CONNECTION_RESETS = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

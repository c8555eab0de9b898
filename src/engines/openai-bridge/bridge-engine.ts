// An OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, another dynamo-ts) as an
// EngineClient: each request becomes one upstream call. A streamed call's chunks each become one
// engine output; a short unary request's call asks for the answer whole (`stream: false`), which
// becomes one output (whole-answer.ts). What the outputs carry per input mode: piece-outputs.ts.
import type { EngineClient, GenerateContext, LLMEngineOutput, PreprocessedRequest } from '../../protocols/index.js';
import { AsyncQueue } from '../../runtime/index.js';
import { AbortRelay, AnswerReader, type AnswerSetup } from './answer-reader.js';
import { OUTPUTS, type BridgeTokenizer, type UpstreamInput } from './piece-outputs.js';
import { SseDataReader } from './sse-lines.js';
import { readChunk, type UpstreamChunkJson } from './upstream-chunk.js';
import { answerFailure, streamedError, upstreamLost, upstreamStatusError } from './upstream-errors.js';
import { UpstreamConnections, type SentRequest, type UpstreamReply } from './upstream-connections.js';
import { textCall, tokenCompletionsCall, type UpstreamCall } from './upstream-request.js';
import { WholeAnswer } from './whole-answer.js';

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

/** The upstream call of a request; a promise only when the prompt's text must be decoded first. */
const CALLS: Readonly<Record<UpstreamInput, (req: PreprocessedRequest, o: BridgeEngineOptions) => UpstreamCall | Promise<UpstreamCall>>> = {
  tokens: (req, o) => tokenCompletionsCall(req, o.model),
  text: (req, o) =>
    Array.isArray(req.extra_args?.messages) ? textCall(req, o.model, '') : o.tokenizer.decode(req.token_ids).then((prompt) => textCall(req, o.model, prompt)),
};

/**
 * vLLM's extensions that only ask for more in the answer. A server that refuses one by name (a 400
 * naming it) is asked again without it, and never sent it again: it answers text, re-tokenized here.
 */
const OPTIONAL_FIELDS = ['return_token_ids', 'return_tokens_as_token_ids'] as const;

/** The headers of a generation request before its length (the caller's follow), by whether its answer comes whole. */
const REQUEST_HEADERS = {
  stream: 'content-type: application/json\r\naccept: text/event-stream\r\n',
  whole: 'content-type: application/json\r\naccept: application/json\r\n',
};

export class OpenAiBridgeEngine implements EngineClient {
  readonly baseUrl: string;
  /** Optional fields this upstream refused. */
  private readonly refused = new Set<string>();
  /** Kept-alive connections to the upstream. */
  private readonly connections: UpstreamConnections;

  constructor(readonly options: BridgeEngineOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.connections = new UpstreamConnections(this.baseUrl, options.headers ?? {});
  }

  /**
   * The upstream's answer as engine outputs. Aborting ctx.signal (or leaving the loop) aborts the
   * upstream request. A 4xx throws its typed error; a 5xx, a lost connection, a malformed answer or
   * an answer cut before its finish throws WorkerLostError. The outputs are pushed as the answer's
   * bytes come (no promise per chunk when the consumer takes them pushed). The upstream call is sent
   * at once, not at the stream's first pull: what the caller still does before it reads (its stages,
   * opening its response) no longer comes before the upstream's turn. The stream is the request's
   * queue from the start, read into from the answer's head on, in the read that brings the head: the
   * first output reaches a consumer that takes them pushed one microtask after its bytes, not after
   * a chain of promises from the head. A failure before the answer fails the queue (the consumer
   * hears it at its first read); a caller that gave up first gets an empty stream. An answer nobody
   * pulls is read into the queue to its end.
   */
  generate(request: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    const queue = new AsyncQueue<LLMEngineOutput>();
    const relay = new AbortRelay(ctx.signal);
    const failed = (err: unknown): void => {
      relay.release();
      queue.fail(err);
    };
    try {
      const made = CALLS[this.options.input](request, this.options);
      if (made instanceof Promise) made.then((call) => this.send(call, relay, queue, failed)).catch(failed);
      else this.send(made, relay, queue, failed);
    } catch (err) {
      failed(err);
    }
    return queue;
  }

  /** Sends `call`; its answer goes to `queue` from its head on, a failure before it to `failed`. */
  private send(call: UpstreamCall, relay: AbortRelay, queue: AsyncQueue<LLMEngineOutput>, failed: (err: unknown) => void): void {
    this.post(call, relay, (reply) => this.answer(call, reply, relay, queue)).then((answered) => {
      if (answered) return;
      relay.release();
      queue.end();
    }, failed);
  }

  /** A 2xx head came: its body is read into the queue, unless the consumer left meanwhile. */
  private answer(call: UpstreamCall, reply: UpstreamReply, relay: AbortRelay, queue: AsyncQueue<LLMEngineOutput>): void {
    if (queue.isEnded) {
      relay.release();
      reply.destroy();
      return;
    }
    const { input, tokenizer } = this.options;
    const setup: AnswerSetup = { api: call.api, input, tokenizer, baseUrl: this.baseUrl };
    (call.whole ? new WholeAnswer(reply, queue, setup, relay) : new UpstreamAnswer(reply, queue, setup, relay)).start();
  }

  /**
   * Sends `call` and gives a 2xx head to `answered` as it comes (in the read that brings it); true
   * then, false when the caller gave up first.
   */
  private post(call: UpstreamCall, relay: AbortRelay, answered: (reply: UpstreamReply) => void, retryReset = true): Promise<boolean> {
    const { responseTimeoutMs } = this.options;
    const { signal } = relay;
    if (signal.aborted) return Promise.resolve(false);
    const json = JSON.stringify(call.body, this.refused.size > 0 ? (key, value: unknown) => (this.refused.has(key) ? undefined : value) : undefined);
    const body = { json, ids: call.promptIds };
    return new Promise((resolve, reject) => {
      let timedOut = false;
      /** The head came, or the request failed: later errors belong to the answer's reading. */
      let settledOnce = false;
      let sent: SentRequest | null = null;
      const timer = setTimeout(() => {
        timedOut = true;
        sent?.destroy();
        failed(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
      }, responseTimeoutMs);
      const onAbort = (): void => {
        sent?.destroy();
        failed(Object.assign(new Error('aborted'), { code: 'ABORT_ERR' }));
      };
      relay.stage = onAbort;
      const settled = (): boolean => {
        if (settledOnce) return false;
        settledOnce = true;
        clearTimeout(timer);
        if (relay.stage === onAbort) relay.stage = null;
        return true;
      };
      const failed = (err: NodeJS.ErrnoException): void => {
        if (!settled()) return;
        if (signal.aborted) resolve(false);
        else if (timedOut) reject(upstreamLost(this.baseUrl, `did not answer within ${responseTimeoutMs} ms`));
        // A kept-alive connection the server closed while idle fails the next request before any
        // answer; one try on a fresh connection tells that apart from a server that is gone.
        else if (retryReset && CONNECTION_RESETS.has(err.code ?? '')) resolve(this.post(call, relay, answered, false));
        else reject(upstreamLost(this.baseUrl, `is unreachable: ${err.code ?? err.message}`));
      };
      try {
        // A retry goes on a fresh connection.
        sent = this.connections.post(call.path, call.whole ? REQUEST_HEADERS.whole : REQUEST_HEADERS.stream, body, !retryReset, {
          reply: (reply) => {
            if (!settled()) return reply.destroy();
            if (reply.status >= 200 && reply.status < 300) {
              answered(reply);
              resolve(true);
            } else this.refusal(call, reply, relay, answered).then(resolve, reject);
          },
          failed,
        });
      } catch (err) {
        settled();
        reject(err);
      }
    });
  }

  /** A non-2xx answer: the request again without the optional fields it names, else its typed error. */
  private async refusal(call: UpstreamCall, reply: UpstreamReply, relay: AbortRelay, answered: (reply: UpstreamReply) => void): Promise<boolean> {
    const text = await bodyText(reply);
    const status = reply.status;
    const refused = status === 400 ? OPTIONAL_FIELDS.filter((f) => call.body[f] !== undefined && text.includes(f)) : [];
    if (refused.length === 0) throw upstreamStatusError(this.baseUrl, status, text);
    for (const field of refused) this.refused.add(field);
    return this.post(call, relay, answered);
  }
}

/** An answer's whole text; '' when it fails on the way. */
function bodyText(reply: UpstreamReply): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    reply.read({
      body: (d) => void parts.push(d),
      end: () => resolve(Buffer.concat(parts).toString('utf8')),
      lost: () => resolve(''),
    });
  });
}

/**
 * One streamed answer read as it comes: each event's chunk becomes an engine output pushed to the
 * request's queue. The finish is held back until the stream is over (usage follows it in a chunk
 * of its own); a chunk whose output needs the tokenizer off the calling thread keeps the outputs
 * after it waiting, in order.
 */
class UpstreamAnswer extends AnswerReader {
  private readonly reader = new SseDataReader((data) => this.onData(data));
  /** The output with the finish, sent at the end. */
  private held: LLMEngineOutput | null = null;
  /** The work of earlier chunks still being done (an encode off the thread): later ones follow it. */
  private chain: Promise<void> | null = null;
  /** The answer ended ([DONE] or its end): the connection going now loses nothing. */
  private complete = false;

  body(bytes: Buffer): void {
    if (this.over || this.complete) return;
    this.reader.push(bytes);
    if (this.reader.isDone) this.finish();
  }

  end(): void {
    if (this.over || this.complete) return;
    this.reader.end();
    this.finish();
  }

  lost(err: Error): void {
    this.dropped(`dropped the stream: ${err.message}`);
  }

  private onData(data: string): void {
    if (this.over) return;
    if (this.chain) {
      this.chain = this.chain.then(() => this.step(data));
      return;
    }
    const waiting = this.step(data);
    if (waiting) this.chain = waiting;
  }

  /** One event: an output pushed (or held); a promise when it waits for the tokenizer. */
  private step(data: string): Promise<void> | undefined {
    if (this.over) return undefined;
    try {
      const json = JSON.parse(data) as UpstreamChunkJson;
      if (json.error !== undefined) throw streamedError(this.setup.baseUrl, json.error);
      const piece = readChunk(json, this.setup.api);
      if (!piece) return undefined;
      if (this.held) {
        // The finish came first; usage follows in its own chunk (stream_options.include_usage).
        if (piece.usage) this.held.completion_usage = piece.usage;
        return undefined;
      }
      const out = OUTPUTS[this.setup.input](piece, this.setup.tokenizer);
      if (!(out instanceof Promise)) {
        this.emit(out);
        return undefined;
      }
      return out.then(
        (o) => this.emit(o),
        (err: unknown) => this.failed(err),
      );
    } catch (err) {
      this.failed(err);
      return undefined;
    }
  }

  private emit(out: LLMEngineOutput): void {
    if (this.over) return;
    if (out.finish_reason) this.held = out;
    else if (out.token_ids.length > 0 || out.text || out.reasoning_content || out.tool_calls) this.queue.push(out);
  }

  /** The stream is over ([DONE] or its end): the held finish goes out, once the chunks before it are done. */
  private finish(): void {
    if (this.complete) return;
    this.complete = true;
    if (this.chain) void this.chain.then(() => this.close());
    else this.close();
  }

  private close(): void {
    if (this.over) return;
    this.over = true;
    this.relay.release();
    // The rest of the answer (its last chunk framing) is read so the connection can be used again.
    this.reply.discard();
    if (this.relay.signal.aborted) this.queue.end();
    else if (!this.held) this.queue.fail(upstreamLost(this.setup.baseUrl, 'ended the stream before a finish reason'));
    else {
      this.queue.push(this.held);
      this.queue.end();
    }
  }

  private failed(err: unknown): void {
    if (this.over) return;
    if (this.relay.signal.aborted) return this.dropped('');
    this.fail(answerFailure(this.setup.baseUrl, err, 'event', 'stream'));
  }

  /** The connection went before the end: a lost worker, unless the caller gave up. */
  private dropped(what: string): void {
    if (this.over || this.complete) return;
    if (this.relay.signal.aborted) {
      this.stop();
      this.queue.end();
      return;
    }
    this.fail(upstreamLost(this.setup.baseUrl, what));
  }

  private fail(err: unknown): void {
    this.stop();
    this.queue.fail(err);
  }

  /** Nothing more is read: the upstream request is aborted. */
  stop(): void {
    this.over = true;
    this.chain = null;
    this.relay.release();
    this.reply.destroy();
  }
}

/** Errors of a connection closed under a request, before its answer began. */
const CONNECTION_RESETS = new Set(['ECONNRESET', 'EPIPE']);

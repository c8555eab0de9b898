// Stand-in OpenAI-compatible servers for the bridge tests: one like vLLM (completions with a token
// array prompt, answering token ids), one text-only (llama.cpp/Ollama-like), one streaming chat the
// way vLLM's own reasoning and tool parsers do, and faults on demand: failing mid-stream, slow,
// unhealthy, refusing with a status. A request without `stream: true` gets the same answer whole,
// as one `text_completion` or `chat.completion` object (the chunks folded: texts and ids joined, a
// chat's deltas merged into its `message`, usage included).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInOptions {
  /** `vllm`: token array prompts, `token_ids` in each chunk when asked (`return_token_ids`). `text`: text prompts and chat only, text answers. */
  kind: 'vllm' | 'text';
  /** The answer, one piece per streamed chunk: token ids (vllm) or text pieces (text). */
  answer: readonly (number | string)[];
  /** Finish reason of a complete answer. */
  finish?: 'stop' | 'length' | 'tool_calls';
  /**
   * A chat answer as vLLM streams it with its own parsers on (`reasoning_content`, `tool_calls`
   * deltas), one delta per chunk: replaces `answer` on /v1/chat/completions.
   */
  chatDeltas?: readonly ScriptedDelta[];
  /** Cut the connection after this many pieces (the process "dies" mid-stream, or mid-body of a whole answer). */
  dropAfter?: number;
  /** Wait this long between pieces. */
  pieceDelayMs?: number;
  /** Wait this long before answering the headers. */
  headerDelayMs?: number;
  /** Answer every generation request with this status and an OpenAI error body. */
  refuseWith?: { status: number; message: string };
  /** No `/health` route (Ollama): health falls back to `/v1/models`. */
  noHealthRoute?: boolean;
  /** A 400 naming this field for a request that has it (a server without that vLLM extension). */
  refuseField?: string;
  /** A non-streamed answer's body is cut short: a 200 whose JSON does not parse. */
  malformedWhole?: boolean;
}

/** One chat chunk's delta, and the tokens it took with their logprobs (sent when the request asks). */
export interface ScriptedDelta {
  delta: Record<string, unknown>;
  tokens?: readonly { token: string; logprob: number; top?: readonly { token: string; logprob: number }[] }[];
}

export interface StandIn {
  readonly url: string;
  readonly options: StandInOptions;
  /** Bodies of the generation requests, in arrival order. */
  readonly requests: { path: string; body: Record<string, unknown>; headers: IncomingMessage['headers'] }[];
  /** Generation requests whose client went away before the answer ended. */
  readonly aborted: number;
  /** Requests in progress. */
  readonly active: number;
  healthy: boolean;
  close(): Promise<void>;
}

export async function startStandIn(options: StandInOptions): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  let aborted = 0;
  let active = 0;
  const state = { healthy: true };
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path === '/health' && !options.noHealthRoute) return void res.writeHead(state.healthy ? 200 : 503).end();
    if (req.method === 'GET' && path === '/v1/models') {
      if (!state.healthy) return void res.writeHead(503).end();
      return void json(res, 200, { object: 'list', data: [{ id: 'stand-in', object: 'model' }] });
    }
    if (req.method !== 'POST' || (path !== '/v1/completions' && path !== '/v1/chat/completions')) return void json(res, 404, { error: { message: 'not found' } });
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    requests.push({ path, body, headers: req.headers });
    if (options.refuseField && body[options.refuseField] !== undefined) {
      return void json(res, 400, { error: { message: `Unrecognized request argument supplied: ${options.refuseField}`, code: 400 } });
    }
    if (options.refuseWith) return void json(res, options.refuseWith.status, { error: { message: options.refuseWith.message, type: 'BadRequestError', code: options.refuseWith.status } });
    if (options.kind === 'vllm' && path === '/v1/completions' && !Array.isArray(body.prompt)) {
      return void json(res, 400, { error: { message: 'this stand-in takes token prompts only', code: 400 } });
    }
    if (options.kind === 'text' && Array.isArray(body.prompt)) return void json(res, 400, { error: { message: 'prompt must be a string', code: 400 } });
    active++;
    let finished = false;
    res.on('close', () => {
      active--;
      if (!finished) aborted++;
    });
    if (options.headerDelayMs) await sleep(options.headerDelayMs);
    if (res.destroyed) return;
    const streamed = body.stream === true;
    if (streamed) res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chat = path === '/v1/chat/completions';
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
    const script = chat ? options.chatDeltas : undefined;
    const pieces: readonly (number | string | ScriptedDelta)[] = script ?? options.answer.slice(0, maxTokens);
    const logprobs = typeof body.logprobs === 'number' ? body.logprobs : null;
    const chunks: Record<string, unknown>[] = [];
    for (const [i, piece] of pieces.entries()) {
      if (options.dropAfter !== undefined && i >= options.dropAfter) {
        // A whole answer is cut inside its body: its head and first bytes came.
        if (!streamed) await new Promise((resolve) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 }).write('{"id":"cmpl-1",', resolve));
        return void res.destroy();
      }
      if (options.pieceDelayMs) await sleep(options.pieceDelayMs);
      if (res.destroyed) return;
      const last = i === pieces.length - 1;
      const finish = last ? (!script && pieces.length < options.answer.length ? 'length' : (options.finish ?? 'stop')) : null;
      const data = typeof piece === 'object' ? scriptedChunk(piece, finish, body) : chunk(piece, finish, chat, logprobs, body.return_token_ids === true);
      // Each piece is on the wire before the next step (a drop must not lose what was sent).
      if (streamed) await new Promise((resolve) => res.write(`data: ${JSON.stringify(data)}\n\n`, resolve));
      else chunks.push(data);
    }
    const usage = { prompt_tokens: Array.isArray(body.prompt) ? body.prompt.length : 7, completion_tokens: pieces.length, total_tokens: 0 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    finished = true;
    if (!streamed) {
      const answer = JSON.stringify(wholeAnswer(chunks, chat, usage));
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(options.malformedWhole ? answer.slice(0, answer.length / 2) : answer);
    }
    res.write(`data: ${JSON.stringify({ id: 'cmpl-1', object: 'text_completion', choices: [], usage })}\n\n`);
    res.write('data: [DONE]\n\n');
    res.end();
  }

  function chunk(piece: number | string, finish: string | null, chat: boolean, logprobs: number | null, ids: boolean): Record<string, unknown> {
    const vllm = typeof piece === 'number';
    const text = vllm ? `<${piece}>` : piece;
    const choice: Record<string, unknown> = chat
      ? { index: 0, delta: { content: text }, finish_reason: finish }
      : { index: 0, text, finish_reason: finish, stop_reason: null };
    if (!vllm && !chat && logprobs !== null) {
      // A text-only server names its tokens by text.
      choice.logprobs = { tokens: [piece], token_logprobs: [-0.5], top_logprobs: [Object.fromEntries([[piece, -0.5], ['~', -4]].slice(0, Math.max(1, logprobs)))] };
    }
    if (vllm) {
      if (ids) choice.token_ids = [piece];
      if (logprobs !== null) {
        choice.logprobs = {
          tokens: [`token_id:${piece}`],
          token_logprobs: [-0.25],
          top_logprobs: [Object.fromEntries([[`token_id:${piece}`, -0.25], [`token_id:${piece + 1}`, -1.5]].slice(0, Math.max(1, logprobs)))],
        };
      }
    }
    return { id: 'cmpl-1', object: chat ? 'chat.completion.chunk' : 'text_completion', choices: [choice], usage: null };
  }

  function scriptedChunk(piece: ScriptedDelta, finish: string | null, body: Record<string, unknown>): Record<string, unknown> {
    const top = typeof body.top_logprobs === 'number' ? body.top_logprobs : 0;
    const bytes = (token: string) => Array.from(Buffer.from(token, 'utf8'));
    const logprobs =
      body.logprobs === true && piece.tokens
        ? {
            content: piece.tokens.map((t) => ({
              token: t.token,
              logprob: t.logprob,
              bytes: bytes(t.token),
              top_logprobs: (t.top ?? []).slice(0, top).map((alt) => ({ ...alt, bytes: bytes(alt.token) })),
            })),
          }
        : null;
    return { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: piece.delta, logprobs, finish_reason: finish }], usage: null };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    options,
    requests,
    get aborted() {
      return aborted;
    },
    get active() {
      return active;
    },
    get healthy() {
      return state.healthy;
    },
    set healthy(value: boolean) {
      state.healthy = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The chunks of an answer folded into its non-streamed object, as the server would have answered it whole. */
function wholeAnswer(chunks: readonly Record<string, unknown>[], chat: boolean, usage: Record<string, number>): Record<string, unknown> {
  const whole: Record<string, unknown> = { index: 0, finish_reason: null, logprobs: null };
  const message: Record<string, unknown> = { role: 'assistant', content: '' };
  const calls: Record<string, unknown>[] = [];
  const join = (into: Record<string, unknown>, key: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    const had = into[key];
    into[key] = typeof value === 'string' ? `${(had as string | undefined) ?? ''}${value}` : [...((had as unknown[] | undefined) ?? []), ...(value as unknown[])];
  };
  for (const c of chunks) {
    const choice = (c.choices as Record<string, unknown>[])[0]!;
    whole.finish_reason = choice.finish_reason ?? whole.finish_reason;
    if ('stop_reason' in choice) whole.stop_reason = choice.stop_reason;
    join(whole, 'text', choice.text);
    join(whole, 'token_ids', choice.token_ids);
    const logprobs = choice.logprobs as Record<string, unknown> | null | undefined;
    if (logprobs) {
      const into = (whole.logprobs ??= {}) as Record<string, unknown>;
      for (const [key, value] of Object.entries(logprobs)) join(into, key, value);
    }
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    for (const key of ['content', 'reasoning', 'reasoning_content']) join(message, key, delta[key]);
    for (const call of (delta.tool_calls ?? []) as Record<string, unknown>[]) {
      const fn = call.function as { name?: string; arguments?: string };
      const at = calls[call.index as number];
      if (at) (at.function as { arguments: string }).arguments += fn.arguments ?? '';
      else calls[call.index as number] = { id: call.id, type: 'function', function: { name: fn.name, arguments: fn.arguments ?? '' } };
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  if (chat) whole.message = message;
  return { id: 'cmpl-1', object: chat ? 'chat.completion' : 'text_completion', choices: [whole], usage };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (data += d));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

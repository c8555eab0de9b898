// A bare node:http server answering OpenAI requests with canned content: the ceiling a gateway in
// Node could reach, and the upstream that nginx, the Portkey gateway and the bridge shapes proxy to.
// Streams carry one OpenAI-shaped chunk per token (`max_tokens` of them, as the mocker with
// `ignore_eos` does), each stream writing EVENTS_PER_WRITE chunks per event-loop turn as one socket
// write. `/v1/chat/completions` answers chat chunks; `/v1/completions` answers completion chunks
// as vLLM does, with each token's id when asked for (`return_token_ids`: the bridge's token-in
// mode). With `stream_options.include_usage` the usage follows in a chunk of its own. Unary
// requests get the same words in one answer (with their ids when asked, as vLLM's `token_ids`). Usage: node dist/bench/support/canned-openai.js <port>
import http from 'node:http';

const EVENTS_PER_WRITE = 8;
const WORDS = [' the', ' sea', ' was', ' calm', ' and', ' grey', ',', ' waves'];
/** The Qwen3 token id of each word (one token each), for `return_token_ids`. */
const WORD_IDS = [279, 9396, 572, 19300, 323, 19780, 11, 16876];
const port = Number(process.argv[2]);

interface Request {
  model?: string;
  max_tokens?: number;
  stream?: boolean;
  return_token_ids?: boolean;
  stream_options?: { include_usage?: boolean };
}

/** How each API writes a token's chunk (`first`: the first of the answer) and its unary answer. */
interface Api {
  object: string;
  choice(i: number, first: boolean, finish: string, ids: boolean): string;
  message(content: string, ids: number[] | null): Record<string, unknown>;
}

const APIS: Readonly<Record<string, Api>> = {
  '/v1/chat/completions': {
    object: 'chat.completion',
    choice: (i, first, finish) => `{"index":0,"delta":{${first ? '"role":"assistant",' : ''}"content":${JSON.stringify(WORDS[i % WORDS.length])}},"finish_reason":${finish},"logprobs":null}`,
    message: (content, ids) => (ids ? { message: { role: 'assistant', content }, token_ids: ids } : { message: { role: 'assistant', content } }),
  },
  '/v1/completions': {
    object: 'text_completion',
    choice: (i, _first, finish, ids) =>
      `{"index":0,"text":${JSON.stringify(WORDS[i % WORDS.length])},${ids ? `"token_ids":[${WORD_IDS[i % WORDS.length]}],` : ''}"logprobs":null,"finish_reason":${finish},"stop_reason":null}`,
    message: (text, ids) => (ids ? { text, token_ids: ids } : { text }),
  },
};

function chunkHead(api: Api, id: string, model: string): string {
  const created = Math.floor(Date.now() / 1000);
  return `data: {"id":${JSON.stringify(id)},"object":"${api.object}${api.object === 'chat.completion' ? '.chunk' : ''}","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[`;
}

const usageOf = (tokens: number): string => `{"prompt_tokens":12,"completion_tokens":${tokens},"total_tokens":${12 + tokens}}`;

function stream(res: http.ServerResponse, api: Api, body: Request, model: string, tokens: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const head = chunkHead(api, `chatcmpl-${Math.random().toString(36).slice(2)}`, model);
  const ids = body.return_token_ids === true;
  const usage = body.stream_options?.include_usage === true;
  let sent = 0;
  let closed = false;
  res.once('close', () => (closed = true));
  const turn = (): void => {
    if (closed) return;
    let out = '';
    for (let i = 0; i < EVENTS_PER_WRITE && sent < tokens; i++, sent++) {
      const finish = sent === tokens - 1 ? '"length"' : 'null';
      out += `${head}${api.choice(sent, sent === 0, finish, ids)}],"usage":null}\n\n`;
    }
    if (sent >= tokens) {
      res.end(`${out}${usage ? `${head}],"usage":${usageOf(tokens)}}\n\n` : ''}data: [DONE]\n\n`);
      return;
    }
    res.write(out);
    setImmediate(turn);
  };
  turn();
}

function unary(res: http.ServerResponse, api: Api, request: Request, model: string, tokens: number): void {
  const content = Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length]).join('');
  const ids = request.return_token_ids === true ? Array.from({ length: tokens }, (_, i) => WORD_IDS[i % WORDS.length]!) : null;
  const body = JSON.stringify({
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: api.object,
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: null,
    choices: [{ index: 0, ...api.message(content, ids), finish_reason: 'length', logprobs: null }],
    usage: JSON.parse(usageOf(tokens)) as unknown,
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    // Health probes and model lists: any GET is answered.
    const list = req.url?.startsWith('/v1/models');
    res.writeHead(200, { 'content-type': list ? 'application/json' : 'text/plain' });
    res.end(list ? '{"object":"list","data":[{"id":"canned","object":"model"}]}' : 'ok');
    return;
  }
  const api = APIS[(req.url ?? '').split('?')[0]!] ?? APIS['/v1/chat/completions']!;
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString()) as Request;
    const model = body.model ?? 'canned';
    const tokens = Math.max(1, body.max_tokens ?? 16);
    if (body.stream) stream(res, api, body, model, tokens);
    else unary(res, api, body, model, tokens);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

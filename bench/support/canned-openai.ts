// A bare node:http server answering OpenAI chat requests with canned content: the ceiling a
// gateway in Node could reach, and the upstream nginx proxies to. Streams carry one OpenAI-shaped
// chunk per token (`max_tokens` of them, as the mocker with `ignore_eos` does), each stream writing
// EVENTS_PER_WRITE chunks per event-loop turn as one socket write. Unary requests get a fixed
// chat.completion. Usage: node dist/bench/support/canned-openai.js <port>
import http from 'node:http';

const EVENTS_PER_WRITE = 8;
const WORDS = [' the', ' sea', ' was', ' calm', ' and', ' grey', ',', ' waves'];
const port = Number(process.argv[2]);

function chunkHead(id: string, model: string): string {
  const created = Math.floor(Date.now() / 1000);
  return `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[`;
}

function stream(res: http.ServerResponse, model: string, tokens: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const head = chunkHead(`chatcmpl-${Math.random().toString(36).slice(2)}`, model);
  let sent = 0;
  let closed = false;
  res.once('close', () => (closed = true));
  const turn = (): void => {
    if (closed) return;
    let out = '';
    for (let i = 0; i < EVENTS_PER_WRITE && sent < tokens; i++, sent++) {
      const last = sent === tokens - 1;
      const role = sent === 0 ? '"role":"assistant",' : '';
      const finish = last ? '"length"' : 'null';
      out += `${head}{"index":0,"delta":{${role}"content":${JSON.stringify(WORDS[sent % WORDS.length])}},"finish_reason":${finish},"logprobs":null}],"usage":null}\n\n`;
    }
    if (sent >= tokens) {
      res.end(`${out}data: [DONE]\n\n`);
      return;
    }
    res.write(out);
    setImmediate(turn);
  };
  turn();
}

function unary(res: http.ServerResponse, model: string, tokens: number): void {
  const content = Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length]).join('');
  const body = JSON.stringify({
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: null,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'length', logprobs: null }],
    usage: { prompt_tokens: 12, completion_tokens: tokens, total_tokens: 12 + tokens },
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString()) as { model?: string; max_tokens?: number; stream?: boolean };
    const model = body.model ?? 'canned';
    const tokens = Math.max(1, body.max_tokens ?? 16);
    if (body.stream) stream(res, model, tokens);
    else unary(res, model, tokens);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

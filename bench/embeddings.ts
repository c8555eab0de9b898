// Embeddings requests/s, measured two ways in the same run, interleaved A B A B at concurrency 16:
//   engine: the mocker's embedding engine called in this process with the tokenized request
//   http:   POST /v1/embeddings through `dynamo-ts serve --model-type embedding` in a child process
//           (JSON parse, validation, tokenization, routing, base64 encoding), read with node:http
// The mocker computes its vectors at once, so the gap between the two is the frontend's cost.
// Usage: node dist/bench/embeddings.js [--rounds N] [--seconds S] [--concurrency C]
import http from 'node:http';
import { parseArgs } from 'node:util';
import { MockEmbeddingEngine } from '../src/engines/mocker/index.js';
import type { PreprocessedEmbeddingRequest } from '../src/protocols/index.js';
import { freePort, startProcess, waitForModel } from '../test/support/processes.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '4' }, seconds: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '16' } },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const MODEL = 'Qwen/Qwen3-0.6B';
const INPUT = 'The quick brown fox jumps over the lazy dog while the frontend turns text into vectors';
const BODY = JSON.stringify({ model: MODEL, input: INPUT, encoding_format: 'base64' });

/** Runs `one` in `concurrency` loops for `seconds`; returns completed requests per second. */
async function rate(one: (i: number) => Promise<void>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      for (let i = 0; performance.now() < end; i++) {
        await one(lane * 1_000_000 + i);
        done++;
      }
    }),
  );
  return done / seconds;
}

function post(agent: http.Agent, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/embeddings', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

async function main(): Promise<void> {
  const port = await freePort();
  const server = startProcess(['serve', '--model-type', 'embedding', '--http-host', '127.0.0.1', '--http-port', String(port)]);
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, server);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const engine = new MockEmbeddingEngine();
  // The token ids the frontend makes of INPUT (the mocker's vectors depend only on them).
  const probe = (await (await fetch(`http://127.0.0.1:${port}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY })).json()) as {
    usage: { prompt_tokens: number };
  };
  const request: PreprocessedEmbeddingRequest = {
    model: MODEL,
    token_ids: [Array.from({ length: probe.usage.prompt_tokens }, (_, i) => 1000 + i)],
    encoding_format: 'base64',
    annotations: [],
  };
  const viaEngine = async (i: number): Promise<void> => {
    for await (const out of engine.generate(request, { requestId: `e${i}`, signal: new AbortController().signal })) void out;
  };
  const viaHttp = (): Promise<void> => post(agent, port);
  const results: { engine: number[]; http: number[] } = { engine: [], http: [] };
  try {
    await rate(viaHttp); // warm-up
    for (let r = 0; r < rounds; r++) {
      results.engine.push(await rate(viaEngine));
      results.http.push(await rate(viaHttp));
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`embeddings, 1 input of ${probe.usage.prompt_tokens} tokens, 256 dims, base64, concurrency ${concurrency}, ${rounds} rounds × ${seconds} s each way`);
  console.log('| path | req/s per round | median |');
  console.log('|---|---|---|');
  for (const [name, xs] of Object.entries(results)) console.log(`| ${name} | ${xs.map((x) => x.toFixed(0)).join(', ')} | ${median(xs).toFixed(0)} |`);
}

await main();

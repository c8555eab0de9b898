// One streaming chat request, measured two ways in the same run, interleaved A B A B:
//   engine: the mocker called in this process with the preprocessed request (no HTTP, no detokenizer)
//   http:   the same request through `dynamo-ts serve` in a child process (HTTP + SSE + detokenizer
//           + stop jail), read with node:http from this process
// The mocker runs with a huge speedup so the engine is never the limit: the gap is frontend cost.
// With --baseline DIR (another checkout, built), a third alternative runs that build's `serve` the
// same way, so a change is measured against the code before it in the same run.
// Usage: node dist/bench/stream-overhead.js [--rounds N] [--tokens N] [--baseline DIR]
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startProcess, waitForModel } from '../test/support/processes.js';
import { streamChat, streamingChatBody } from './support/sse-client.js';
import { parseCommandLine } from '../src/config/index.js';
import { startServe } from '../src/launch/index.js';
import { createLogger } from '../src/observability/index.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '10' }, tokens: { type: 'string', default: '4000' }, baseline: { type: 'string' } },
});
const rounds = Number(values.rounds);
const maxTokens = Number(values.tokens);
const MODEL = 'Qwen/Qwen3-0.6B';

interface Sample {
  ttftMs: number;
  tokensPerSec: number;
  tokens: number;
}


async function main(): Promise<void> {
  const parsed = parseCommandLine(['serve', '--http-host', '127.0.0.1', '--http-port', '0', '--speedup-ratio', '1000000'], {});
  if (parsed.kind !== 'run') throw new Error('unexpected');
  const service = await startServe(parsed.config, createLogger('silent'));
  const model = service.models.get(MODEL);
  const engine = service.engines[0]!;
  const startServer = async (bin?: string): Promise<{ port: number; stop(): Promise<unknown> }> => {
    const port = await freePort();
    const server = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000'], {}, bin);
    await waitForModel(`http://127.0.0.1:${port}`, MODEL, server);
    return { port, stop: () => server.stop() };
  };
  const server = await startServer();
  const baseline = values.baseline ? await startServer(path.resolve(values.baseline, 'bin/dynamo-ts.js')) : undefined;

  async function viaEngine(i: number): Promise<Sample> {
    const prepared = await model.preprocessor.preprocessChat(model.preprocessor.validateChat(JSON.parse(streamingChatBody(MODEL, maxTokens))));
    const start = performance.now();
    let first = 0;
    let tokens = 0;
    for await (const out of engine.generate(prepared.request, { requestId: `e${i}`, signal: new AbortController().signal })) {
      if (tokens === 0) first = performance.now();
      tokens += out.token_ids.length;
    }
    const end = performance.now();
    return { ttftMs: first - start, tokensPerSec: (tokens / (end - start)) * 1000, tokens };
  }

  const agent = new http.Agent({ keepAlive: true });
  const payload = streamingChatBody(MODEL, maxTokens);
  async function viaHttp(port: number): Promise<Sample> {
    const t = await streamChat(port, payload, agent);
    return { ttftMs: t.ttftMs, tokensPerSec: (t.tokens / t.ms) * 1000, tokens: t.tokens };
  }

  const engineSamples: Sample[] = [];
  const httpSamples: Sample[] = [];
  const baselineSamples: Sample[] = [];
  await viaEngine(-1);
  await viaHttp(server.port);
  if (baseline) await viaHttp(baseline.port);
  for (let i = 0; i < rounds; i++) {
    engineSamples.push(await viaEngine(i));
    httpSamples.push(await viaHttp(server.port));
    if (baseline) baselineSamples.push(await viaHttp(baseline.port));
  }
  await service.stop();
  await server.stop();
  await baseline?.stop();

  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const report = (name: string, s: Sample[]): { ttft: number; tps: number } => {
    const ttft = median(s.map((x) => x.ttftMs));
    const tps = median(s.map((x) => x.tokensPerSec));
    console.log(`${name.padEnd(7)} ttft_p50_ms=${ttft.toFixed(3)} tokens_per_s_p50=${tps.toFixed(0)} tokens=${s[0]!.tokens}`);
    return { ttft, tps };
  };
  console.log(`one streaming request, ${maxTokens} tokens, ${rounds} interleaved rounds, mocker speedup 1e6`);
  const e = report('engine', engineSamples);
  const h = report('http', httpSamples);
  console.log(`ttft_added_ms=${(h.ttft - e.ttft).toFixed(3)}`);
  console.log(`tokens_per_s_ratio_http_over_engine=${(h.tps / e.tps).toFixed(3)}`);
  if (baseline) {
    const b = report('base', baselineSamples);
    console.log(`tokens_per_s_ratio_http_over_baseline=${(h.tps / b.tps).toFixed(3)} ttft_added_over_baseline_ms=${(h.ttft - b.ttft).toFixed(3)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

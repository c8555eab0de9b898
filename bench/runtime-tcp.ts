// Streaming through the distributed runtime vs in-process, in one run, interleaved:
//   inproc: `dynamo-ts serve` (frontend + mocker in one process, in-process request plane)
//   tcp:    `dynamo-ts frontend` + `dynamo-ts mocker` processes (file discovery, TCP request plane,
//           the worker dialing back to stream responses)
// The mocker runs with speedup 1e6 so the engine is never the limit: the gap is the request plane.
// Each round: one stream alone (TTFT, tokens/s), then `--concurrency` streams at once (aggregate tokens/s).
// Usage: node dist/bench/runtime-tcp.js [--rounds N] [--tokens N] [--concurrency N]
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../test/support/processes.js';
import { streamChat, streamingChatBody, type StreamTiming } from './support/sse-client.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    tokens: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
  },
});
const rounds = Number(values.rounds);
const maxTokens = Number(values.tokens);
const concurrency = Number(values.concurrency);
const MODEL = 'Qwen/Qwen3-0.6B';
const SPEEDUP = ['--speedup-ratio', '1000000'];

const payload = streamingChatBody(MODEL, maxTokens);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const stream = (port: number): Promise<StreamTiming> => streamChat(port, payload, agent);

async function concurrent(port: number): Promise<number> {
  const start = performance.now();
  const all = await Promise.all(Array.from({ length: concurrency }, () => stream(port)));
  return (all.reduce((n, s) => n + s.tokens, 0) / (performance.now() - start)) * 1000;
}

async function main(): Promise<void> {
  const procs: RunningProcess[] = [];
  const kvRoot = mkdtempSync(path.join(tmpdir(), 'bench-file-kv-'));
  const quiet = { DYN_LOG: 'warn' };
  const inprocPort = await freePort();
  procs.push(startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(inprocPort), ...SPEEDUP], quiet));
  const tcpPort = await freePort();
  const runtimeEnv = { ...quiet, DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_TCP_RPC_HOST: '127.0.0.1' };
  procs.push(startProcess(['frontend', '--http-host', '127.0.0.1', '--http-port', String(tcpPort)], runtimeEnv));
  procs.push(startProcess(['mocker', ...SPEEDUP], runtimeEnv));
  await waitForModel(`http://127.0.0.1:${inprocPort}`, MODEL, procs[0]);
  await waitForModel(`http://127.0.0.1:${tcpPort}`, MODEL, procs[1]);

  const setups = { inproc: inprocPort, tcp: tcpPort };
  const single: Record<string, StreamTiming[]> = { inproc: [], tcp: [] };
  const aggregate: Record<string, number[]> = { inproc: [], tcp: [] };
  for (const port of Object.values(setups)) await stream(port);
  for (let r = 0; r < rounds; r++) {
    for (const [name, port] of Object.entries(setups)) {
      single[name]!.push(await stream(port));
      aggregate[name]!.push(await concurrent(port));
    }
  }
  await Promise.all(procs.map((p) => p.stop()));
  rmSync(kvRoot, { recursive: true, force: true });

  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${maxTokens}-token streams, ${rounds} interleaved rounds, mocker speedup 1e6, concurrency ${concurrency}`);
  const results: Record<string, { ttft: number; tps: number; agg: number }> = {};
  for (const name of Object.keys(setups)) {
    const s = single[name]!;
    results[name] = {
      ttft: median(s.map((x) => x.ttftMs)),
      tps: median(s.map((x) => (x.tokens / x.ms) * 1000)),
      agg: median(aggregate[name]!),
    };
    const r = results[name]!;
    console.log(`${name.padEnd(6)} ttft_p50_ms=${r.ttft.toFixed(2)} tokens_per_s_1_stream=${r.tps.toFixed(0)} tokens_per_s_${concurrency}_streams=${r.agg.toFixed(0)} tokens=${s[0]!.tokens}`);
  }
  const { inproc, tcp } = results as { inproc: { ttft: number; tps: number; agg: number }; tcp: { ttft: number; tps: number; agg: number } };
  console.log(`ttft_added_ms=${(tcp.ttft - inproc.ttft).toFixed(2)} ratio_tcp_over_inproc_1_stream=${(tcp.tps / inproc.tps).toFixed(3)} ratio_tcp_over_inproc_${concurrency}_streams=${(tcp.agg / inproc.agg).toFixed(3)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

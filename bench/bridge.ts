// Added cost of bridging: one streaming chat request straight to an OpenAI-compatible upstream vs
// the same request through frontend → bridge → upstream, interleaved A B A B in one run.
// Upstreams (each a child process):
//   serve:   `dynamo-ts serve` (mocker, speedup 1e6): answers text only, so the bridge re-tokenizes
//   vllm:    a vLLM-like stand-in answering token ids (the token-in path vLLM and SGLang give)
// The bridging frontend is one child process with --upstream-config (no extra worker process).
// Reported per path: TTFT and tokens/s (medians), and the CPU time the frontend process spends per
// token (from /proc, steadier than wall time on a shared machine).
// Usage: node dist/bench/bridge.js [--rounds N] [--tokens N]
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../test/support/processes.js';
import { streamChat, streamingChatBody } from './support/sse-client.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '8' }, tokens: { type: 'string', default: '2000' } } });
const [rounds, maxTokens] = [Number(values.rounds), Number(values.tokens)];
/** The model `serve` answers as. */
const SERVED = 'Qwen/Qwen3-0.6B';

/** One request's timings; the CPU is that of the process that bridges (0 for direct calls). */
type Sample = { ttftMs: number; tokensPerSec: number; cpuUsPerToken: number };

/** utime + stime of a process, in µs. */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

async function standInProcess(): Promise<{ url: string; stop(): void }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/stand-in-process.js');
  const child = spawn(process.execPath, [script, '--tokens', String(maxTokens)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  return { url, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const servePort = await freePort();
  const serve = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(servePort), '--speedup-ratio', '1000000']);
  await waitForModel(`http://127.0.0.1:${servePort}`, SERVED, serve);
  const vllm = await standInProcess();
  const dir = mkdtempSync(path.join(tmpdir(), 'dyn-bench-bridge-'));
  const file = path.join(dir, 'upstreams.yaml');
  writeFileSync(file, `models:\n  via-serve: [{ url: "http://127.0.0.1:${servePort}", model: "${SERVED}" }]\n  via-vllm: ["${vllm.url}"]\n`);
  const frontendPort = await freePort();
  const frontend: RunningProcess = startProcess(
    ['frontend', '--http-host', '127.0.0.1', '--http-port', String(frontendPort), '--discovery-backend', 'mem', '--request-plane', 'inproc', '--event-plane', 'inproc', '--upstream-config', file],
    { DYN_LOG: 'warn' },
  );
  await waitForModel(`http://127.0.0.1:${frontendPort}`, 'via-serve', frontend);
  await waitForModel(`http://127.0.0.1:${frontendPort}`, 'via-vllm', frontend);

  const agent = new http.Agent({ keepAlive: true });
  const vllmPort = Number(new URL(vllm.url).port);
  const paths: Record<string, { port: number; model: string; bridge: boolean }> = {
    'serve direct': { port: servePort, model: SERVED, bridge: false },
    'serve bridged': { port: frontendPort, model: 'via-serve', bridge: true },
    'vllm-like direct': { port: vllmPort, model: 'stand-in', bridge: false },
    'vllm-like bridged': { port: frontendPort, model: 'via-vllm', bridge: true },
  };
  async function run(name: string): Promise<Sample> {
    const p = paths[name]!;
    const before = p.bridge ? cpuUs(frontend.proc.pid!) : 0;
    const t = await streamChat(p.port, streamingChatBody(p.model, maxTokens), agent);
    const cpu = p.bridge ? cpuUs(frontend.proc.pid!) - before : 0;
    return { ttftMs: t.ttftMs, tokensPerSec: (t.tokens / t.ms) * 1000, cpuUsPerToken: cpu / Math.max(1, t.tokens) };
  }
  const samples = new Map<string, Sample[]>(Object.keys(paths).map((k) => [k, []]));
  // One warm-up request per path.
  for (const name of Object.keys(paths)) await run(name);
  for (let i = 0; i < rounds; i++) for (const name of Object.keys(paths)) samples.get(name)!.push(await run(name));

  const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`rounds ${rounds}, ${maxTokens} tokens per request, load average ${load}`);
  console.log('| path | TTFT ms | tokens/s | bridge CPU µs/token |');
  console.log('|---|---|---|---|');
  for (const [name, xs] of samples) {
    console.log(`| ${name} | ${median(xs.map((s) => s.ttftMs)).toFixed(2)} | ${Math.round(median(xs.map((s) => s.tokensPerSec)))} | ${xs[0]!.cpuUsPerToken ? median(xs.map((s) => s.cpuUsPerToken)).toFixed(1) : '–'} |`);
  }
  for (const upstream of ['serve', 'vllm-like']) {
    const d = samples.get(`${upstream} direct`)!;
    const b = samples.get(`${upstream} bridged`)!;
    const addedTtft = median(b.map((s) => s.ttftMs)) - median(d.map((s) => s.ttftMs));
    const ratio = median(b.map((s) => s.tokensPerSec)) / median(d.map((s) => s.tokensPerSec));
    console.log(`${upstream}: added TTFT ${addedTtft.toFixed(2)} ms, bridged/direct tokens/s ${ratio.toFixed(2)}`);
  }
  agent.destroy();
  await frontend.stop();
  await serve.stop();
  vllm.stop();
}

await main();

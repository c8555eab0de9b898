// ModelInfer req/s and p50/p99 latency at concurrency 1, 16 and 64: `dynamo-ts serve
// --kserve-grpc-server` (mocker at speedup 1000, max_tokens 1) against a bare grpc-js server that
// answers a fixed response (the floor grpc-js sets). Each server is its own child process; the
// client is this process; the two are measured alternately, point by point, for several rounds.
// With --baseline DIR (another checkout, built), that build's server is measured as a third
// alternative, interleaved the same way.
// Run: npm run bench:grpc -- [--seconds S] [--rounds R] [--baseline DIR]
import * as grpc from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadProtos } from '../src/frontends/grpc/index.js';
import { freePort, startProcess, type RunningProcess } from '../test/support/processes.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '2' }, baseline: { type: 'string' } },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const REQUEST = {
  model_name: 'Qwen/Qwen3-0.6B',
  inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('Hello world')] } }],
  parameters: { max_tokens: { int64_param: 1 }, ignore_eos: { bool_param: true } },
};

interface Point {
  rps: number;
  p50: number;
  p99: number;
}

async function startBare(): Promise<{ port: number; stop(): void }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'grpc-bare-server.js');
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /port=(\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

async function startKserve(bin?: string): Promise<{ port: number; proc: RunningProcess }> {
  const port = await freePort();
  const metricsPort = await freePort();
  const proc = startProcess([
    'serve', '--kserve-grpc-server', '--http-host', '127.0.0.1', '--http-port', String(port),
    '--grpc-metrics-port', String(metricsPort), '--speedup-ratio', '1000',
  ], {}, bin);
  const deadline = Date.now() + 30_000;
  while (!(await fetch(`http://127.0.0.1:${metricsPort}/v1/models`).then((r) => r.ok, () => false))) {
    if (Date.now() > deadline) throw new Error(`kserve server did not start:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, proc };
}

async function measure(port: number, concurrency: number): Promise<Point> {
  const Ctor = grpc.makeGenericClientConstructor(loadProtos().inference, 'GRPCInferenceService');
  const client = new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    ModelInfer(req: unknown, cb: (err: Error | null) => void): void;
  };
  const call = () => new Promise<void>((res, rej) => client.ModelInfer(REQUEST, (e) => (e ? rej(e) : res())));
  for (let i = 0; i < 50; i++) await call();
  const latencies: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  client.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return { rps: latencies.length / SECONDS, p50: q(0.5), p99: q(0.99) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const bare = await startBare();
const kserve = await startKserve();
const baseline = values.baseline ? await startKserve(path.resolve(values.baseline, 'bin/dynamo-ts.js')) : undefined;
const results = new Map<number, { bare: Point[]; kserve: Point[]; baseline: Point[] }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const c of [1, 16, 64]) {
    const r = results.get(c) ?? { bare: [], kserve: [], baseline: [] };
    r.bare.push(await measure(bare.port, c));
    r.kserve.push(await measure(kserve.port, c));
    if (baseline) r.baseline.push(await measure(baseline.port, c));
    results.set(c, r);
  }
}
bare.stop();
await kserve.proc.stop();
await baseline?.proc.stop();

console.log(`ModelInfer, ${ROUNDS} rounds x ${SECONDS} s per point, medians; servers in child processes`);
console.log('| concurrency | bare req/s | bare p50/p99 ms | kserve+mocker req/s | kserve p50/p99 ms | ratio |');
console.log('|---|---|---|---|---|---|');
const ratios: number[] = [];
for (const [c, r] of results) {
  const b = { rps: median(r.bare.map((p) => p.rps)), p50: median(r.bare.map((p) => p.p50)), p99: median(r.bare.map((p) => p.p99)) };
  const k = { rps: median(r.kserve.map((p) => p.rps)), p50: median(r.kserve.map((p) => p.p50)), p99: median(r.kserve.map((p) => p.p99)) };
  ratios.push(k.rps / b.rps);
  console.log(
    `| ${c} | ${b.rps.toFixed(0)} | ${b.p50.toFixed(2)} / ${b.p99.toFixed(2)} | ${k.rps.toFixed(0)} | ${k.p50.toFixed(2)} / ${k.p99.toFixed(2)} | ${((k.rps / b.rps) * 100).toFixed(0)}% |`,
  );
}
console.log(`kserve_over_bare_rps_min=${Math.min(...ratios).toFixed(3)}`);
if (baseline) {
  const overBaseline = [...results].map(([c, r]) => `c=${c}:${(median(r.kserve.map((p) => p.rps)) / median(r.baseline.map((p) => p.rps))).toFixed(3)}`);
  console.log(`kserve_over_baseline_rps ${overBaseline.join(' ')}`);
}

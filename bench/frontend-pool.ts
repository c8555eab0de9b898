// One frontend process against a pool of N (--http-workers), side by side in one run, interleaved
// A B B A per round: `dynamo-ts serve` with the mocker at a huge speedup (the engine is never the
// limit), so what is measured is the frontend.
//   stream: S concurrent SSE chat streams of T tokens each (one connection per stream): tokens/s
//   unary:  R small non-streaming chats at concurrency C over keep-alive connections: req/s
// Server CPU per unit of work is read from /proc (utime + stime of the serve process and its
// children), steadier than wall time on a shared machine.
// Usage: node dist/bench/frontend-pool.js [--processes N] [--rounds N] [--streams S] [--tokens T]
//        [--requests R] [--concurrency C]
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { freePort, startProcess, type RunningProcess } from '../test/support/processes.js';
import { procSnapshot } from './support/proc-stats.js';
import { streamChat, streamingChatBody } from './support/sse-client.js';

const { values } = parseArgs({
  options: {
    processes: { type: 'string', default: String(availableParallelism()) },
    rounds: { type: 'string', default: '3' },
    streams: { type: 'string', default: '256' },
    tokens: { type: 'string', default: '300' },
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '64' },
  },
});
const MODEL = 'Qwen/Qwen3-0.6B';
const processes = Number(values.processes);
const rounds = Number(values.rounds);
const streams = Number(values.streams);
const tokensPerStream = Number(values.tokens);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);

interface Server {
  name: string;
  port: number;
  proc: RunningProcess;
}

async function startServer(name: string, workers: number): Promise<Server> {
  const port = await freePort();
  const proc = startProcess(
    ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', String(workers), '--speedup-ratio', '1000000000'],
    { DYN_LOGGING_JSONL: 'true' },
  );
  const deadline = Date.now() + 120_000;
  while (!proc.output().includes('dynamo-ts serve listening')) {
    if (proc.proc.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not start:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, port, proc };
}

interface Run {
  perSecond: number;
  cpuUsPerUnit: number;
}

async function measure(server: Server, work: () => Promise<number>): Promise<Run> {
  const pid = server.proc.proc.pid!;
  const cpu0 = procSnapshot(pid).cpuMicros;
  const t0 = performance.now();
  const units = await work();
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: units / seconds, cpuUsPerUnit: (procSnapshot(pid).cpuMicros - cpu0) / units };
}

/** S streams at once, each on its own connection: the streamed tokens. */
async function streamLoad(server: Server): Promise<number> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: streams });
  const payload = streamingChatBody(MODEL, tokensPerStream);
  const done = await Promise.all(Array.from({ length: streams }, () => streamChat(server.port, payload, agent)));
  agent.destroy();
  return done.reduce((n, s) => n + s.tokens, 0);
}

function unaryChat(port: number, agent: http.Agent, payload: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** R small chats, C at a time over C keep-alive connections: the requests. */
async function unaryLoad(server: Server): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const payload = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, ignore_eos: true });
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await unaryChat(server.port, agent, payload);
    }),
  );
  agent.destroy();
  return requests;
}

const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const one = await startServer('1 process', 1);
  const pool = await startServer(`${processes} processes`, processes);
  const results = new Map<string, { stream: Run[]; unary: Run[] }>([
    [one.name, { stream: [], unary: [] }],
    [pool.name, { stream: [], unary: [] }],
  ]);
  const loads: number[] = [];
  try {
    // Warm both (JIT, tokenizer, connections to the workers) before anything counts.
    for (const s of [one, pool]) {
      await unaryLoad(s);
      await streamLoad(s);
    }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [one, pool] : [pool, one];
      for (const s of order) results.get(s.name)!.stream.push(await measure(s, () => streamLoad(s)));
      for (const s of order.slice().reverse()) results.get(s.name)!.unary.push(await measure(s, () => unaryLoad(s)));
      loads.push(loadavg()[0]!);
      process.stderr.write(`round ${r + 1}/${rounds} done\n`);
    }
  } finally {
    await one.proc.stop();
    await pool.proc.stop();
  }
  const row = (name: string) => {
    const { stream, unary } = results.get(name)!;
    return {
      streamTokensPerS: median(stream.map((x) => x.perSecond)),
      streamCpuUsPerToken: median(stream.map((x) => x.cpuUsPerUnit)),
      unaryReqPerS: median(unary.map((x) => x.perSecond)),
      unaryCpuUsPerReq: median(unary.map((x) => x.cpuUsPerUnit)),
    };
  };
  const a = row(one.name);
  const b = row(pool.name);
  const fmt = (v: number) => v.toFixed(v < 100 ? 1 : 0);
  console.log(`frontend pool, ${rounds} rounds interleaved; ${streams} streams × ${tokensPerStream} tokens; ${requests} unary chats at concurrency ${concurrency}; cores ${availableParallelism()}; load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' ')}`);
  console.log('| server | stream tokens/s | server CPU µs/token | unary req/s | server CPU µs/req |');
  console.log('|---|---|---|---|---|');
  for (const [name, r] of [[one.name, a], [pool.name, b]] as const) {
    console.log(`| ${name} | ${fmt(r.streamTokensPerS)} | ${fmt(r.streamCpuUsPerToken)} | ${fmt(r.unaryReqPerS)} | ${fmt(r.unaryCpuUsPerReq)} |`);
  }
  console.log(`pool_stream_ratio=${(b.streamTokensPerS / a.streamTokensPerS).toFixed(2)} pool_unary_ratio=${(b.unaryReqPerS / a.unaryReqPerS).toFixed(2)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

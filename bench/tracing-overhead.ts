// What tracing costs a chat request: `serve` child processes answering unary chat requests
// (16 tokens, mocker speedup 1e6), read in interleaved rounds at a fixed concurrency. `off`: this
// build with tracing off; `on`: this build with OTEL_EXPORT_ENABLED, exporting to a collector in
// this process that reads and drops the spans; with --baseline DIR, `base`: another built
// checkout (the commit before tracing), tracing off. Reports requests/s and the server's CPU time
// per request (utime + stime from /proc, the steadier figure on a shared machine), medians.
// Usage: node dist/bench/tracing-overhead.js [--rounds N] [--requests N] [--concurrency N] [--baseline DIR]
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../test/support/processes.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
    baseline: { type: 'string' },
  },
});
const MODEL = 'Qwen/Qwen3-0.6B';
const BODY = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Say something short' }], max_tokens: 16, ignore_eos: true });
const TICK = 100; // USER_HZ on Linux

interface Server {
  label: string;
  port: number;
  proc: RunningProcess;
  agent: Agent;
}

/** The process's CPU time so far, in milliseconds (utime + stime of /proc/<pid>/stat). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK;
}

function chat(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, path: '/v1/chat/completions', method: 'POST', agent: server.agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${server.label}: status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

async function round(server: Server, requests: number, concurrency: number): Promise<{ rps: number; cpuPerRequestMs: number }> {
  const pid = server.proc.proc.pid!;
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await chat(server);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { rps: requests / seconds, cpuPerRequestMs: (cpuMs(pid) - cpu0) / requests };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function start(label: string, env: Record<string, string>, bin?: string): Promise<Server> {
  const port = await freePort();
  const proc = startProcess(['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000000'], { DYN_LOG: 'warn', ...env }, bin);
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, proc, 60_000);
  return { label, port, proc, agent: new Agent({ keepAlive: true, maxSockets: 64 }) };
}

async function main(): Promise<void> {
  const rounds = Number(values.rounds);
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  let spans = 0;
  const collector = createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      spans++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const tracesUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  const servers: Server[] = [];
  if (values.baseline) servers.push(await start('base', {}, path.resolve(values.baseline, 'bin/dynamo-ts.js')));
  servers.push(await start('off', {}));
  servers.push(await start('on', { OTEL_EXPORT_ENABLED: '1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: tracesUrl }));
  console.log(`unary chat, 16 tokens, ${requests} requests per round at concurrency ${concurrency}, ${rounds} interleaved rounds; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const results = new Map(servers.map((s) => [s.label, { rps: [] as number[], cpu: [] as number[] }]));
  for (const s of servers) await round(s, 50, concurrency); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const s of servers) {
      const { rps, cpuPerRequestMs } = await round(s, requests, concurrency);
      results.get(s.label)!.rps.push(rps);
      results.get(s.label)!.cpu.push(cpuPerRequestMs);
    }
  }
  const off = results.get('off')!;
  console.log('| build | req/s (median) | server CPU per request (median) | req/s vs off | CPU vs off |');
  console.log('|---|---|---|---|---|');
  for (const s of servers) {
    const x = results.get(s.label)!;
    const rps = median(x.rps);
    const cpu = median(x.cpu);
    console.log(`| ${s.label} | ${rps.toFixed(0)} | ${(cpu * 1000).toFixed(0)} µs | ${(rps / median(off.rps)).toFixed(3)} | ${(cpu / median(off.cpu)).toFixed(3)} |`);
  }
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; trace exports received: ${spans}`);
  for (const s of servers) {
    s.agent.destroy();
    await s.proc.stop();
  }
  collector.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

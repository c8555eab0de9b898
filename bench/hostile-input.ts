// Hostile requests against `dynamo-ts serve` in a child process while a light client pings a cheap
// route (GET /health, one at a time, keep-alive): per phase, the worst ping latency (how long any
// other client waited behind the hostile work), the server's RSS afterwards, and the CPU time its
// main thread spent per hostile request (what the event loop was held for on a quiet machine,
// whatever the neighbours do to the wall clock; the pings' own share, measured idle, is taken off;
// 10 ms resolution).
// Phases: deep nesting (100k levels), 100k messages, messages at the limit, 40 MB prompts, slow
// bodies, then idle pauses and the final RSS against the baseline.
// Usage: node dist/bench/hostile-input.js [--prompt-mb 40] [--repeat 5] [--server-arg=--max-prompt-chars=...]...
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { freePort, startProcess, waitForModel } from '../test/support/processes.js';

const { values } = parseArgs({
  options: {
    'prompt-mb': { type: 'string', default: '40' },
    repeat: { type: 'string', default: '5' },
    'limit-messages': { type: 'string', default: '4096' },
    'server-arg': { type: 'string', multiple: true, default: [] },
  },
});
const PROMPT_MB = Number(values['prompt-mb']);
const REPEAT = Number(values.repeat);
const LIMIT_MESSAGES = Number(values['limit-messages']);
const MODEL = 'Qwen/Qwen3-0.6B';
const BODY_TIMEOUT_SECS = 2;

/** CPU time of the server's main thread (the event loop) so far, in ms: clock ticks of 10 ms. */
function loopCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** One ping at a time, as fast as answers come; remembers the slowest since the last reset. */
class Pinger {
  private worst = 0;
  private running = true;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  readonly done: Promise<void>;

  constructor(private readonly port: number) {
    this.done = this.loop();
  }

  private ping(): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: this.port, path: '/health', agent: this.agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const started = performance.now();
      await this.ping();
      this.worst = Math.max(this.worst, performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  takeWorst(): number {
    const worst = this.worst;
    this.worst = 0;
    return worst;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
    this.agent.destroy();
  }
}

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A connection that sends half a body and goes quiet; resolves with the status the server sent, when it closes. */
function slowBody(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('connect', () =>
      socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":'),
    );
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(received.slice(9, 12)) || 0));
  });
}

const chat = (messages: unknown[], extra = '') => `{"model":"${MODEL}","messages":${JSON.stringify(messages)},"max_tokens":1${extra}}`;
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

async function main(): Promise<void> {
  const port = await freePort();
  const serverArgs = values['server-arg'] as string[];
  const server = startProcess(
    ['serve', '--http-host', '127.0.0.1', '--http-port', String(port), '--speedup-ratio', '1000', ...serverArgs],
    { DYN_HTTP_BODY_TIMEOUT_SECS: String(BODY_TIMEOUT_SECS) },
  );
  await waitForModel(`http://127.0.0.1:${port}`, MODEL, server);
  const pid = server.proc.pid!;
  for (let i = 0; i < 20; i++) await post(port, chat([{ role: 'user', content: `warm up ${i}` }]));
  await new Promise((r) => setTimeout(r, 2000));
  const pinger = new Pinger(port);
  await new Promise((r) => setTimeout(r, 1000));
  // What the pings alone cost the loop per second, taken off each phase's figure.
  const idleCpu = loopCpuMs(pid);
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const pingCpuPerMs = (loopCpuMs(pid) - idleCpu) / (performance.now() - idleStarted);
  const baseline = rssMb(pid);
  console.log(`server args: ${serverArgs.join(' ') || '(defaults)'}; prompt ${PROMPT_MB} MB x ${REPEAT}`);
  console.log(`phase                          statuses              worst ping ms   RSS MB   loop CPU ms/request`);
  console.log(`idle baseline                  -                     ${pinger.takeWorst().toFixed(1).padStart(13)}   ${baseline.toFixed(0).padStart(6)}`);

  const phase = async (name: string, run: () => Promise<number[]>): Promise<void> => {
    const cpuBefore = loopCpuMs(pid);
    const started = performance.now();
    const statuses = await run();
    const pingCpu = pingCpuPerMs * (performance.now() - started);
    const cpuPerRequest = Math.max(0, loopCpuMs(pid) - cpuBefore - pingCpu) / statuses.length;
    const counts = new Map<number, number>();
    for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
    const summary = [...counts].map(([s, n]) => `${n}x${s}`).join(' ');
    console.log(`${name.padEnd(30)} ${summary.padEnd(21)} ${pinger.takeWorst().toFixed(1).padStart(13)}   ${rssMb(pid).toFixed(0).padStart(6)}   ${cpuPerRequest.toFixed(0).padStart(19)}`);
  };
  const times = async (n: number, one: () => Promise<number>): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(await one());
    return out;
  };

  const nested = `${chat([{ role: 'user', content: 'hi' }]).slice(0, -1)},"logit_bias":{"5":${deep(100_000)}}}`;
  await phase('logit_bias nested 100k deep', () => times(REPEAT, () => post(port, nested)));
  const many = chat(Array.from({ length: 100_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })));
  await phase('100k messages', () => times(REPEAT, () => post(port, many)));
  const atLimit = chat(Array.from({ length: LIMIT_MESSAGES }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` })));
  await phase(`${LIMIT_MESSAGES} messages (at the limit)`, () => times(REPEAT, () => post(port, atLimit)));
  const huge = chat([{ role: 'user', content: 'word '.repeat((PROMPT_MB * 1024 * 1024) / 5) }]);
  await phase(`${PROMPT_MB} MB prompt`, () => times(REPEAT, () => post(port, huge)));
  await phase('100 slow bodies', () => Promise.all(Array.from({ length: 100 }, () => slowBody(port))));
  // V8 gives memory back to the system on its own schedule once the process is quiet.
  let final = 0;
  let idle = 0;
  for (const secs of [10, 30, 60]) {
    await new Promise((r) => setTimeout(r, (secs - idle) * 1000));
    idle = secs;
    final = rssMb(pid);
    console.log(`${`idle ${secs} s after the drill`.padEnd(30)} -                     ${pinger.takeWorst().toFixed(1).padStart(13)}   ${final.toFixed(0).padStart(6)}`);
  }
  console.log(`RSS after/baseline: ${(final / baseline).toFixed(2)}`);
  await pinger.stop();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

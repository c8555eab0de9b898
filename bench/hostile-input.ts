// Hostile requests against `dynamo-ts serve` in a child process while a light client pings a cheap
// route (GET /health, one at a time, keep-alive): per phase, the worst ping latency (how long any
// other client waited behind the hostile work) and the server's RSS afterwards.
// Phases: deep nesting (100k levels), 100k messages, messages at the limit, 40 MB prompts, slow
// bodies, then an idle pause and the final RSS against the baseline.
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
  const baseline = rssMb(pid);
  console.log(`server args: ${serverArgs.join(' ') || '(defaults)'}; prompt ${PROMPT_MB} MB x ${REPEAT}`);
  console.log(`phase                          statuses              worst ping ms   RSS MB`);
  console.log(`idle baseline                  -                     ${pinger.takeWorst().toFixed(1).padStart(13)}   ${baseline.toFixed(0).padStart(6)}`);

  const phase = async (name: string, run: () => Promise<number[]>): Promise<void> => {
    const statuses = await run();
    const counts = new Map<number, number>();
    for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
    const summary = [...counts].map(([s, n]) => `${n}x${s}`).join(' ');
    console.log(`${name.padEnd(30)} ${summary.padEnd(21)} ${pinger.takeWorst().toFixed(1).padStart(13)}   ${rssMb(pid).toFixed(0).padStart(6)}`);
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
  await new Promise((r) => setTimeout(r, 10_000));
  const final = rssMb(pid);
  console.log(`idle 10 s after the drill       -                     ${pinger.takeWorst().toFixed(1).padStart(13)}   ${final.toFixed(0).padStart(6)}`);
  console.log(`RSS after/baseline: ${(final / baseline).toFixed(2)}`);
  await pinger.stop();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

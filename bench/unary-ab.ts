// Small unary chats through two builds' `serve` in this one process, interleaved A B A B: CPU time
// of the whole process (both services and the client) per request, for slices of `--requests`
// answers from each in turn. On a host shared with other work this is steadier than comparing
// processes: the other build runs in the same slices of time and on the same CPU, and no load
// generator competes for the cores. The client is a raw keep-alive HTTP/1.1 writer over loopback
// with `--connections` connections; its cost is in both figures alike.
// Usage: node dist/bench/unary-ab.js --baseline DIR [--slices 24] [--requests 3000] [--connections 32]
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMicros, median } from './support/cpu-time.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    slices: { type: 'string', default: '24' },
    requests: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '32' },
  },
});
if (!values.baseline) throw new Error('--baseline DIR (a built checkout) is required');
const MODEL = 'Qwen/Qwen3-0.6B';
const THIS_BUILD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `serve --http-workers 1` of the build in `dir`, in this process; resolves to its port. */
async function startServe(dir: string): Promise<number> {
  const load = (module: string): Promise<Record<string, (...args: unknown[]) => unknown>> => import(path.join(dir, 'dist/src', module, 'index.js'));
  const [config, launch, observability] = await Promise.all([load('config'), load('launch'), load('observability')]);
  const args = ['serve', '--http-host', '127.0.0.1', '--http-port', '0', '--http-workers', '1', '--speedup-ratio', '1000000000'];
  const parsed = config.parseCommandLine!(args, {}) as { kind: string; config: unknown };
  if (parsed.kind !== 'run') throw new Error(`serve did not parse: ${parsed.kind}`);
  const service = (await launch.startServe!(parsed.config, observability.createLogger!('silent'))) as { port: number };
  return service.port;
}

const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8, ignore_eos: true });
const REQUEST = Buffer.from(
  `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
);

/** A kept-alive connection that calls `answered` once per complete 200 answer. */
class Connection {
  answered: () => void = () => undefined;
  private pending = '';

  constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => this.read(text));
  }

  private read(text: string): void {
    this.pending += text;
    for (;;) {
      const head = this.pending.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(this.pending.slice(0, head))?.[1]);
      if (this.pending.length < head + 4 + length) return;
      if (!this.pending.startsWith('HTTP/1.1 200')) throw new Error(`not a 200: ${this.pending.slice(0, 300)}`);
      this.pending = this.pending.slice(head + 4 + length);
      this.answered();
    }
  }
}

function connect(port: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
    socket.once('error', reject);
  });
}

interface Slice {
  cpuMicrosPerRequest: number;
  requestsPerSecond: number;
}

/** `requests` answers over `connections`, each sending its next request once answered. */
function slice(connections: readonly Connection[], requests: number): Promise<Slice> {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    const cpu = cpuMicros();
    const started = performance.now();
    const send = (c: Connection): void => {
      if (sent === requests) return;
      sent++;
      c.socket.write(REQUEST);
    };
    for (const c of connections) {
      c.answered = () => {
        if (++answered < requests) return send(c);
        resolve({ cpuMicrosPerRequest: (cpuMicros() - cpu) / requests, requestsPerSecond: requests / ((performance.now() - started) / 1000) });
      };
      send(c);
    }
  });
}

async function main(): Promise<void> {
  const builds = [
    { name: 'this build', dir: THIS_BUILD },
    { name: 'baseline', dir: path.resolve(values.baseline!) },
  ];
  const requests = Number(values.requests);
  const pools: Connection[][] = [];
  for (const build of builds) {
    const port = await startServe(build.dir);
    pools.push(await Promise.all(Array.from({ length: Number(values.connections) }, () => connect(port))));
  }
  // Warm both (JIT, caches) before anything counts.
  for (let i = 0; i < 3; i++) for (const pool of pools) await slice(pool, requests);
  const slices: Slice[][] = builds.map(() => []);
  for (let s = 0; s < Number(values.slices); s++) {
    // Each goes first in every other pair: neither always follows the other's garbage.
    const order = s % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) slices[k]!.push(await slice(pools[k]!, requests));
  }
  builds.forEach((build, k) => {
    const cpu = slices[k]!.map((x) => x.cpuMicrosPerRequest);
    console.log(
      `${build.name.padEnd(10)} CPU µs per request: median ${median(cpu).toFixed(1)}, min ${Math.min(...cpu).toFixed(1)}; req/s median ${median(slices[k]!.map((x) => x.requestsPerSecond)).toFixed(0)}`,
    );
  });
  const paired = slices[0]!.map((x, i) => x.cpuMicrosPerRequest / slices[1]![i]!.cpuMicrosPerRequest);
  const ratio = median(slices[0]!.map((x) => x.cpuMicrosPerRequest)) / median(slices[1]!.map((x) => x.cpuMicrosPerRequest));
  console.log(`CPU per request, this build / baseline: ratio of medians ${ratio.toFixed(3)}, median of paired slices ${median(paired).toFixed(3)}`);
  process.exit(0);
}

await main();

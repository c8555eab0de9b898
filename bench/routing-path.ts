// CPU and bytes per small request through the routing path alone: a PushRouter (round-robin, the
// process's WorkerLiveness watch on, as `serve` routes) to an in-process engine whose queue stream
// answers one output, consumed pushed (drainStream) as a unary answer is, 64 requests at a time.
// Each request also makes its client's AbortController, as the HTTP frontend does. CPU is the best
// of 5 runs (process.cpuUsage); bytes are a sampling heap profile that counts collected objects.
//
//   node dist/bench/routing-path.js [--baseline DIR] [--rounds 3] [--requests 40000]
//
// Each build runs in a process of its own, on its own dist/src; with --baseline, rounds alternate
// (A B A B) and the medians are printed.

import { execFileSync } from 'node:child_process';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './support/cpu-time.js';

type RouterModule = typeof import('../src/router/index.js');
type RuntimeModule = typeof import('../src/runtime/index.js');
type ProtocolsModule = typeof import('../src/protocols/index.js');

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '40000' },
    root: { type: 'string' },
  },
});
const REQUESTS = Number(values.requests);
const BATCH = 64;

if (values.root) await measure(values.root);
else compare();

/** Runs the rounds, one process per build and round, and prints the medians. */
function compare(): void {
  const self = fileURLToPath(import.meta.url);
  const here = path.resolve(path.dirname(self), '../..');
  const builds = [{ name: 'this build', root: here }, ...(values.baseline ? [{ name: 'baseline', root: path.resolve(values.baseline) }] : [])];
  const figures = new Map<string, { cpu: number[]; bytes: number[] }>(builds.map((b) => [b.name, { cpu: [], bytes: [] }]));
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const build of builds) {
      const out = execFileSync(process.execPath, [self, '--root', build.root, '--requests', String(REQUESTS)], { encoding: 'utf8' });
      const { cpu, bytes } = JSON.parse(out) as { cpu: number; bytes: number };
      figures.get(build.name)!.cpu.push(cpu);
      figures.get(build.name)!.bytes.push(bytes);
      console.log(`round ${round} ${build.name.padEnd(10)} cpu_us_per_req=${cpu.toFixed(2)} bytes_per_req=${Math.round(bytes)}`);
    }
  }
  for (const [name, f] of figures) console.log(`median ${name.padEnd(10)} cpu_us_per_req=${median(f.cpu).toFixed(2)} bytes_per_req=${Math.round(median(f.bytes))}`);
}

/** One build's figures, as JSON on stdout. */
async function measure(root: string): Promise<void> {
  const dist = path.join(root, 'dist/src');
  const r = (await import(path.join(dist, 'router/index.js'))) as RouterModule;
  const rt = (await import(path.join(dist, 'runtime/index.js'))) as RuntimeModule;
  const pr = (await import(path.join(dist, 'protocols/index.js'))) as ProtocolsModule;
  const health = new r.InstanceHealth();
  const router = new r.PushRouter('m', r.createRouterPolicy('round-robin'), { health, liveness: new r.WorkerLiveness(health) });
  const engine = {
    generate(_request: unknown, ctx: { signal: AbortSignal }) {
      return rt.queueStream(async () => {
        const queue = new rt.AsyncQueue<object>();
        // As an engine does: the client's abort stops the call, and the call lets go of the signal at its end.
        const onAbort = (): void => queue.end();
        ctx.signal.addEventListener('abort', onAbort);
        queue.whenClosed(() => ctx.signal.removeEventListener('abort', onAbort));
        queueMicrotask(() => {
          queue.push({ token_ids: [1, 2], finish_reason: 'stop' });
          queue.end();
        });
        return { queue };
      });
    },
  };
  router.setInstances([{ id: 1n, client: engine as never }]);
  const request = { model: 'm', token_ids: [1, 2, 3, 4, 5, 6, 7, 8], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };
  const one = (i: number): Promise<void> =>
    pr.drainStream(router.generate(request as never, { requestId: `r${i}`, signal: new AbortController().signal }), () => undefined);
  const run = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i += BATCH) {
      const batch: Promise<void>[] = [];
      for (let j = 0; j < BATCH; j++) batch.push(one(i + j));
      await Promise.all(batch);
    }
  };
  await run(REQUESTS / 2);
  let cpu = Infinity;
  for (let k = 0; k < 5; k++) {
    const before = process.cpuUsage();
    await run(REQUESTS);
    const used = process.cpuUsage(before);
    cpu = Math.min(cpu, (used.user + used.system) / REQUESTS);
  }
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await run(REQUESTS);
  const { profile } = await post<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
  process.stdout.write(JSON.stringify({ cpu, bytes: sampledBytes(profile.head) / REQUESTS }));
  process.exit(0);
}

interface HeapNode {
  selfSize: number;
  children: HeapNode[];
}

function sampledBytes(node: HeapNode): number {
  let total = node.selfSize;
  for (const child of node.children) total += sampledBytes(child);
  return total;
}

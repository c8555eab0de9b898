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

import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchOptions, compareWithBaseline, inBatches, measureRequests } from './support/request-figures.js';

type RouterModule = typeof import('../src/router/index.js');
type RuntimeModule = typeof import('../src/runtime/index.js');
type ProtocolsModule = typeof import('../src/protocols/index.js');

const { values } = parseArgs({ options: benchOptions(40000) });
const REQUESTS = Number(values.requests);
const BATCH = 64;

if (values.root) await measure(values.root);
else compareWithBaseline(import.meta.url, values.baseline, Number(values.rounds), (build) => ['--root', build.root, '--requests', String(REQUESTS)]);

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
  const run = (count: number): Promise<void> => inBatches(one, count, BATCH);
  const { figures } = await measureRequests(run, REQUESTS);
  process.stdout.write(JSON.stringify(figures));
  process.exit(0);
}

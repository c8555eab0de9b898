// Memory (not in CI): `dynamo-ts serve` under --requests small non-streaming chat requests
// (default 1,000,000; the mocker at a huge speedup so the frontend is what runs), the server's RSS
// and V8 heap sampled every --every requests (default 100,000). The check: RSS after all requests
// within 10% of RSS after the first checkpoint. Prints one line per checkpoint as it goes, so a
// run stopped early still shows its trend.
// The server starts with the malloc settings `npm start` and the image use (src/launch/malloc-tuning.ts).
// Usage: node dist/bench/memory-1m.js [--requests N] [--every N] [--concurrency N]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CLIENTS } from '../src/cli/bench/clients/index.js';
import { mallocTuningFor } from '../src/launch/malloc-tuning.js';
import { startServe } from '../test/support/processes.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    every: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '32' },
  },
});
const REQUESTS = Number(values.requests);
const EVERY = Number(values.every);
const CONCURRENCY = Number(values.concurrency);
const MODEL = 'Qwen/Qwen3-0.6B';

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function heapUsedMb(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN) / 2 ** 20;
}

const { proc, baseUrl } = await startServe(['--speedup-ratio', '1000000000', '--num-workers', '1'], mallocTuningFor(process.env));
const client = CLIENTS.chat(baseUrl);
try {
  const pid = proc.proc.pid!;
  console.log(`requests=${REQUESTS} every=${EVERY} concurrency=${CONCURRENCY} rss_start_mb=${rssMb(pid).toFixed(1)}`);
  let sent = 0;
  let done = 0;
  let failed = 0;
  let firstRss = 0;
  let checkpoint = Promise.resolve();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (sent < REQUESTS) {
      const n = sent++;
      const outcome = await client.send({
        model: MODEL,
        messages: [{ role: 'user', content: `memory ${n}` }],
        maxTokens: 2,
        ignoreEos: true,
        stream: false,
        signal: AbortSignal.timeout(60_000),
      });
      if (outcome.error !== undefined) failed++;
      if (++done % EVERY === 0) {
        const at = done;
        checkpoint = checkpoint.then(async () => {
          const rss = rssMb(pid);
          if (firstRss === 0) firstRss = rss;
          const rate = at / ((performance.now() - t0) / 1000);
          console.log(`requests=${at} failed=${failed} rss_mb=${rss.toFixed(1)} heap_used_mb=${(await heapUsedMb(baseUrl)).toFixed(1)} ` +
            `rss_vs_first_checkpoint=${(rss / firstRss).toFixed(3)} req_per_s=${rate.toFixed(0)}`);
        });
      }
    }
  }));
  await checkpoint;
  const end = rssMb(pid);
  console.log(`done requests=${done} failed=${failed} rss_first_checkpoint_mb=${firstRss.toFixed(1)} rss_end_mb=${end.toFixed(1)} ` +
    `ratio=${(end / firstRss).toFixed(3)} within_10_percent=${Math.abs(end / firstRss - 1) <= 0.1}`);
} finally {
  client.close();
  await proc.stop(3000);
}

// Soak (not in CI): `dynamo-ts serve` under steady streaming load for --duration seconds (default
// 600), every stream checked to finish; prints the server's RSS at the start and at the end.
import { readFileSync } from 'node:fs';
import { startServe } from '../test/support/processes.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const flag = process.argv.indexOf('--duration');
const durationSecs = flag >= 0 ? Number(process.argv[flag + 1]) : 600;
if (!(durationSecs > 0)) throw new Error('--duration must be a positive number of seconds');
const CONCURRENCY = 32;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

const { proc, baseUrl } = await startServe(['--num-workers', '2']);
try {
  const pid = proc.proc.pid!;
  const deadline = Date.now() + durationSecs * 1000;
  let done = 0;
  let failed = 0;
  let startRss: number | null = null;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let seed = lane; Date.now() < deadline; seed += CONCURRENCY) {
        const res = await fetch(`${baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `soak ${seed}` }], seed, max_tokens: 64, stream: true }),
        });
        const text = await res.text();
        if (res.status !== 200 || !text.includes('data: [DONE]') || text.includes('"error"')) failed++;
        // Measured once the server is warm: after the first round of requests.
        if (++done === CONCURRENCY) startRss = rssMb(pid);
      }
    }),
  );
  console.log(`duration_s=${durationSecs} requests=${done} failed=${failed} rss_start_mb=${(startRss ?? 0).toFixed(1)} rss_end_mb=${rssMb(pid).toFixed(1)}`);
} finally {
  await proc.stop(3000);
}

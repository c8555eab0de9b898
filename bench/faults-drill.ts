// The kill-under-load drill: etcd + nats-server + a frontend + 3 mockers as child processes on
// loopback, 200 chat streams at concurrency 32, one worker killed with kill -9 mid-run; once with
// migration on and once off. Every stream is compared token by token with its unbroken answer (same
// seed, asked again afterwards). Prints, last, one line per mode:
//   router=MODE migration=on|off requests=N failed=N lost_tokens=N duplicated_tokens=N
import { startEtcd, startNats } from '../test/support/infra-servers.js';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../test/support/processes.js';
import { pool } from './support/bounded-pool.js';
import { compareTokens } from './support/stream-accounting.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const REQUESTS = Number(process.env.DRILL_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.DRILL_CONCURRENCY ?? 32);
const MAX_TOKENS = 64;
/** `DRILL_ROUTER_MODE=kv` runs the drill with KV-aware routing (round-robin otherwise). */
const ROUTER_MODE = process.env.DRILL_ROUTER_MODE ?? 'round-robin';

interface Outcome {
  tokens: string[];
  failed: boolean;
}

/** One chat stream; its content deltas stand for its tokens (one token per step from the mocker). */
async function chat(baseUrl: string, seed: number): Promise<Outcome> {
  const tokens: string[] = [];
  try {
    const res = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `drill ${seed}` }], seed, max_tokens: MAX_TOKENS, stream: true }),
    });
    if (res.status !== 200) return { tokens, failed: true };
    const text = await res.text();
    let failed = !text.includes('data: [DONE]');
    for (const event of text.split('\n\n')) {
      if (!event.startsWith('data: {')) continue;
      const data = JSON.parse(event.slice(6)) as { error?: unknown; choices?: { delta?: { content?: string } }[] };
      if (data.error) failed = true;
      const piece = data.choices?.[0]?.delta?.content;
      if (piece) tokens.push(piece);
    }
    return { tokens, failed };
  } catch {
    return { tokens, failed: true };
  }
}

async function drill(migrationLimit: number, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const frontend = startProcess(['frontend', '--http-host', '127.0.0.1', '--http-port', String(port), '--migration-limit', String(migrationLimit), '--router-mode', ROUTER_MODE], env);
  const workers: RunningProcess[] = [0, 1, 2].map(() => startProcess(['mocker'], { ...env, DYN_TCP_RPC_HOST: '127.0.0.1' }));
  try {
    await waitForModel(baseUrl, MODEL, frontend, 60_000);
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const health = (await (await fetch(`${baseUrl}/health`)).json()) as { instances?: unknown[] };
      if ((health.instances?.length ?? 0) >= 3) break;
    }
    const outcomes = await pool(REQUESTS, CONCURRENCY, (i) => chat(baseUrl, i), (done) => {
      if (done === Math.floor(REQUESTS / 4)) workers[0]!.proc.kill('SIGKILL');
    });
    const expected = await pool(REQUESTS, CONCURRENCY, (i) => chat(baseUrl, i));
    let failed = 0;
    let lost = 0;
    let duplicated = 0;
    outcomes.forEach((o, i) => {
      if (o.failed) failed++;
      const diff = compareTokens(o.tokens, expected[i]!.tokens);
      lost += diff.lost;
      duplicated += diff.duplicated;
    });
    return `requests=${REQUESTS} failed=${failed} lost_tokens=${lost} duplicated_tokens=${duplicated}`;
  } finally {
    await Promise.all([frontend.stop(3000), ...workers.map((w) => w.stop(3000))]);
  }
}

const [etcd, nats] = await Promise.all([startEtcd(), startNats()]);
try {
  const env = { DYN_DISCOVERY_BACKEND: 'etcd', ETCD_ENDPOINTS: etcd.url, NATS_SERVER: nats.url, DYN_LOG: 'error' };
  const on = await drill(3, env);
  const off = await drill(0, env);
  console.log(`router=${ROUTER_MODE} migration=on  ${on}`);
  console.log(`router=${ROUTER_MODE} migration=off ${off}`);
} finally {
  await Promise.all([etcd.dispose(), nats.dispose()]);
}

// The chaos drill: the production shape on loopback (etcd, nats-server, a `dynamo-ts frontend`
// pool of two HTTP processes with KV routing and --migration-limit 3 over the TCP request plane,
// three mocker processes) under bounded streaming load, while one fault after another is dealt, in
// rotation: kill -9 of a worker (a new one is started at once, as a supervisor would), SIGSTOP of a
// worker (SIGCONT after --stop-secs), kill -9 of a pool process (its primary starts another), an
// etcd restart and a nats-server restart (each down --outage-secs). Every stream is judged against
// the answer the same request gives undisturbed (asked before the first fault, and asked again after
// the last to check that answer), so lost and repeated tokens show. Streams on a killed pool
// process's own connections are counted apart: they must end with an error the client sees at once.
//
//   npm run bench:chaos -- [--minutes 2 | --quick] [--interval 15 (--quick: 10)] [--concurrency 16]
//
// Prints the failures (each with its error and the fault active then), a table, and last one
// `key=value` line.
import http from 'node:http';
import { loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEtcd, startNats, type InfraServer } from '../test/support/infra-servers.js';
import { freePort, startProcess, waitForModel, type RunningProcess } from '../test/support/processes.js';
import { pool } from './support/bounded-pool.js';
import { procChildren } from './support/proc-stats.js';
import { peerPortsOf } from './support/proc-sockets.js';
import {
  SseEvents,
  applyChatEvent,
  completed,
  faultAt,
  judge,
  killOf,
  summarize,
  summaryLine,
  type FaultWindow,
  type FrontendKill,
  type StreamOutcome,
} from './support/stream-accounting.js';

const MODEL = 'Qwen/Qwen3-0.6B';
/** Distinct requests: each is asked many times, its undisturbed answer once before and once after. */
const KEYS = 48;
/** A stream's length: 2–4 s at the mocker's pace on this machine under the drill's load. */
const tokensOf = (key: number): number => 300 + (key % 5) * 75;
/** A stream silent this long is given up by the client (and counted failed). */
const CLIENT_TIMEOUT_MS = 120_000;

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    quick: { type: 'boolean', default: false },
    interval: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    'stop-secs': { type: 'string', default: '8' },
    'outage-secs': { type: 'string', default: '3' },
    'log-dir': { type: 'string', default: '/tmp/dynamo-chaos' },
  },
});
const MINUTES = args.quick ? 1 : Number(args.minutes);
/** --quick deals a fault every 10 s, so its minute still sees each of the five. */
const INTERVAL_MS = Number(args.interval ?? (args.quick ? 10 : 15)) * 1000;
const CONCURRENCY = Number(args.concurrency);
const STOP_MS = Number(args['stop-secs']) * 1000;
const OUTAGE_MS = Number(args['outage-secs']) * 1000;

/** The `msg` of a process's last JSON log line, or its last line. */
function lastLine(output: string): string {
  const line = output.trim().split('\n').at(-1) ?? '';
  try {
    return (JSON.parse(line) as { msg?: string }).msg ?? line;
  } catch {
    return line.slice(0, 200);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One streamed chat request on a connection of its own, read to its end. */
function stream(port: number, key: number): Promise<StreamOutcome> {
  const body = JSON.stringify({
    model: MODEL,
    messages: [{ role: 'user', content: `chaos drill request ${key}` }],
    seed: key,
    max_tokens: tokensOf(key),
    ignore_eos: true,
    stream: true,
  });
  const o: StreamOutcome = { key, startedAt: Date.now(), endedAt: 0, deltas: [], done: false, maxWaitMs: 0 };
  return new Promise((resolve) => {
    let last = performance.now();
    let settled = false;
    const settle = (transportError?: string): void => {
      if (settled) return;
      settled = true;
      o.endedAt = Date.now();
      if (transportError !== undefined) o.transportError = transportError;
      resolve(o);
    };
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        o.status = res.statusCode;
        const events = new SseEvents();
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const now = performance.now();
          if (now - last > o.maxWaitMs) {
            o.maxWaitMs = now - last;
            o.maxWaitAt = Date.now();
          }
          last = now;
          if (o.status !== 200) return void (raw += chunk);
          try {
            for (const data of events.push(chunk)) applyChatEvent(o, data);
          } catch (err) {
            o.errorEvent = `unreadable event: ${(err as Error).message}`;
          }
        });
        res.on('end', () => {
          if (o.status !== 200) o.errorEvent = raw.slice(0, 300);
          settle(o.status === 200 && !o.done && o.errorEvent === undefined ? 'closed before [DONE]' : undefined);
        });
        res.on('error', (err) => settle((err as NodeJS.ErrnoException).code ?? err.message));
        res.on('close', () => settle(o.done ? undefined : 'closed before [DONE]'));
      },
    );
    req.on('socket', (s) => s.once('connect', () => (o.localPort = s.localPort)));
    req.on('error', (err) => settle((err as NodeJS.ErrnoException).code ?? err.message));
    req.setTimeout(CLIENT_TIMEOUT_MS, () => req.destroy(new Error('client timeout')));
    req.end(body);
  });
}

/** The production shape's processes, and the faults dealt to them. */
class Shape {
  readonly workers: RunningProcess[] = [];
  /** Every worker process ever started, for the logs. */
  readonly allWorkers: RunningProcess[] = [];
  readonly faults: FaultWindow[] = [];
  readonly kills: FrontendKill[] = [];
  /** Workers that exited without being killed by the drill, and what their last log line said. */
  readonly selfExits: { at: number; code: number | null; why: string }[] = [];
  private readonly killed = new Set<RunningProcess>();
  private stopping = false;

  private constructor(
    readonly etcd: InfraServer,
    readonly nats: InfraServer,
    readonly frontend: RunningProcess,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  static async start(): Promise<Shape> {
    const [etcd, nats] = await Promise.all([startEtcd(), startNats()]);
    const env = { DYN_DISCOVERY_BACKEND: 'etcd', ETCD_ENDPOINTS: etcd.url, NATS_SERVER: nats.url, DYN_LOG: 'warn' };
    const port = await freePort();
    const frontend = startProcess(
      ['frontend', '--http-host', '127.0.0.1', '--http-port', String(port), '--http-workers', '2', '--router-mode', 'kv', '--migration-limit', '3', '--request-plane', 'tcp'],
      { ...env, DYN_HTTP_WORKERS: '2' },
    );
    const shape = new Shape(etcd, nats, frontend, port, env);
    for (let i = 0; i < 3; i++) shape.workers.push(shape.startWorker());
    try {
      await waitForModel(`http://127.0.0.1:${port}`, MODEL, frontend, 120_000);
      await shape.untilInstances(3);
    } catch (err) {
      await shape.stop();
      throw err;
    }
    return shape;
  }

  /**
   * A worker that exits by itself (one whose lease expired while it was stopped exits so that a
   * supervisor starts it again) is started again here, as its supervisor would.
   */
  private startWorker(): RunningProcess {
    const w = startProcess(['mocker'], { ...this.env, DYN_TCP_RPC_HOST: '127.0.0.1' });
    this.allWorkers.push(w);
    void w.exited.then((code) => {
      const slot = this.workers.indexOf(w);
      if (this.stopping || this.killed.has(w) || slot < 0) return;
      this.selfExits.push({ at: Date.now(), code, why: lastLine(w.output()) });
      this.workers[slot] = this.startWorker();
    });
    return w;
  }

  /** Until both pool processes (asked a few times in a row) route to `count` worker instances. */
  async untilInstances(count: number, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let inARow = 0;
    while (inARow < 4) {
      if (Date.now() > deadline) throw new Error(`not ${count} instances after ${timeoutMs} ms:\n${this.frontend.output().slice(-3000)}`);
      try {
        const health = (await (await fetch(`http://127.0.0.1:${this.port}/health`)).json()) as { instances?: unknown[] };
        inARow = (health.instances?.length ?? 0) >= count ? inARow + 1 : 0;
      } catch {
        inARow = 0;
      }
      await sleep(100);
    }
  }

  private async window(name: string, deal: () => Promise<void>): Promise<void> {
    const f: FaultWindow = { name, start: Date.now() };
    this.faults.push(f);
    await deal();
    f.end = Date.now();
  }

  /** The rotation: the n-th fault dealt. */
  async deal(n: number): Promise<void> {
    const round = Math.floor(n / 5);
    switch (n % 5) {
      case 0:
        return this.window('worker-kill', async () => {
          const slot = round % 3;
          const victim = this.workers[slot]!;
          this.killed.add(victim);
          victim.proc.kill('SIGKILL');
          await victim.exited;
          this.workers[slot] = this.startWorker();
        });
      case 1:
        return this.window('worker-stop', async () => {
          const victim = this.workers[(round + 1) % 3]!;
          victim.proc.kill('SIGSTOP');
          await sleep(STOP_MS);
          victim.proc.kill('SIGCONT');
        });
      case 2:
        return this.window('frontend-kill', async () => {
          const children = procChildren(this.frontend.proc.pid!);
          const pid = children[round % children.length]!;
          // Stopped first, so the connections read are all it holds when it dies.
          process.kill(pid, 'SIGSTOP');
          const ports = peerPortsOf(pid, this.port);
          process.kill(pid, 'SIGKILL');
          this.kills.push({ at: Date.now(), pid, ports });
          // Healed once the primary has started another.
          const deadline = Date.now() + 30_000;
          while (Date.now() < deadline && (procChildren(this.frontend.proc.pid!).includes(pid) || procChildren(this.frontend.proc.pid!).length < children.length)) await sleep(50);
        });
      case 3:
        return this.window('etcd-restart', () => this.outage(this.etcd));
      default:
        return this.window('nats-restart', () => this.outage(this.nats));
    }
  }

  private async outage(server: InfraServer): Promise<void> {
    await server.stop();
    await sleep(OUTAGE_MS);
    await server.restart();
  }

  /** Every worker running, for the re-fetch. */
  healAll(): void {
    for (const w of this.workers) w.proc.kill('SIGCONT');
  }

  saveLogs(dir: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'frontend.log'), this.frontend.output());
    this.allWorkers.forEach((w, i) => writeFileSync(path.join(dir, `mocker-${i}.log`), w.output()));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.healAll();
    await Promise.all([this.frontend.stop(5000), ...this.workers.map((w) => w.stop(3000))]);
    await Promise.all([this.etcd.dispose(), this.nats.dispose()]);
  }
}

/** The undisturbed answer of every key, as deltas; a key whose answer failed is left out. */
async function answers(port: number): Promise<Map<number, string[]>> {
  const keys = Array.from({ length: KEYS }, (_, k) => k);
  const outcomes = await pool(keys.length, CONCURRENCY, (i) => stream(port, keys[i]!));
  const out = new Map<number, string[]>();
  for (const o of outcomes) if (completed(o)) out.set(o.key, o.deltas);
  return out;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const at = (t: number, t0: number): string => `+${((t - t0) / 1000).toFixed(1)} s`;

const shape = await Shape.start();
const loadBefore = load();
try {
  const expected = await answers(shape.port);
  const t0 = Date.now();
  const endAt = t0 + MINUTES * 60_000;
  console.log(`chaos drill: ${MINUTES} min, a fault every ${INTERVAL_MS / 1000} s, ${CONCURRENCY} streams at a time, ${KEYS} distinct requests (${expected.size} answered undisturbed); load average ${loadBefore}`);

  const outcomes: StreamOutcome[] = [];
  let sent = 0;
  const clients = Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < endAt) outcomes.push(await stream(shape.port, sent++ % KEYS));
  });
  const faults = (async () => {
    for (let n = 0; Date.now() + INTERVAL_MS <= endAt; n++) {
      const next = Date.now() + INTERVAL_MS;
      await shape.deal(n);
      const f = shape.faults.at(-1)!;
      console.log(`${at(f.start, t0)} ${f.name} (healed after ${((f.end! - f.start) / 1000).toFixed(1)} s)`);
      await sleep(next - Date.now());
    }
  })();
  await Promise.all([...clients, faults]);
  const loadAfter = load();

  shape.healAll();
  await shape.untilInstances(3);
  const again = await answers(shape.port);
  const unstable = [...again].filter(([k, d]) => expected.has(k) && expected.get(k)!.join('') !== d.join('')).length;

  const judgements = outcomes.map((o) => judge(o, expected.get(o.key), shape.kills));
  const s = summarize(outcomes, judgements);

  const notOk = judgements.map((j, i) => ({ j, o: outcomes[i]! })).filter(({ j }) => j.verdict !== 'ok' && j.verdict !== 'cut_own_frontend');
  if (notOk.length) console.log(`\nfailed, lost or repeated (${notOk.length}):`);
  for (const { j, o } of notOk.slice(0, 50)) {
    const what = j.verdict === 'failed' ? j.reason : `${j.lostTokens} token(s) lost, ${j.duplicatedTokens} extra`;
    console.log(`  ${at(o.endedAt, t0)} request ${o.key}: ${j.verdict}: ${what}; fault: ${faultAt(shape.faults, o.endedAt)}`);
  }
  if (notOk.length > 50) console.log(`  ... and ${notOk.length - 50} more`);

  console.log('\nfrontend kills (streams on the killed process\'s own connections):');
  for (const k of shape.kills) {
    const cut = outcomes.filter((o, i) => judgements[i]!.verdict === 'cut_own_frontend' && killOf(o, shape.kills) === k);
    const held = cut.filter((o) => o.localPort !== undefined && k.ports.has(o.localPort)).length;
    const ms = cut.map((o) => o.endedAt - k.at);
    const span = ms.length ? `${Math.min(...ms)}–${Math.max(...ms)} ms` : '-';
    console.log(`  ${at(k.at, t0)} pid ${k.pid}: held ${k.ports.size} connection(s); ${held} stream(s) on them cut, ${cut.length - held} being handed to it reset; client error after ${span}`);
  }

  for (const e of shape.selfExits) console.log(`${at(e.at, t0)} a worker exited by itself (code ${e.code}): "${e.why}"; started again`);
  const lengths = judgements.flatMap((j, i) => (j.verdict === 'ok' ? [outcomes[i]!.endedAt - outcomes[i]!.startedAt] : [])).sort((a, b) => a - b);
  const pct = (p: number): string => ((lengths[Math.floor((lengths.length - 1) * p)] ?? 0) / 1000).toFixed(1);
  console.log(`stream length (completed): p10 ${pct(0.1)} s, p50 ${pct(0.5)} s, p90 ${pct(0.9)} s`);

  const slowest = outcomes.filter((o, i) => judgements[i]!.verdict !== 'cut_own_frontend').sort((a, b) => b.maxWaitMs - a.maxWaitMs)[0];
  if (slowest?.maxWaitAt !== undefined) {
    console.log(`longest wait: ${Math.round(slowest.maxWaitMs)} ms (request ${slowest.key}, ended ${at(slowest.maxWaitAt, t0)}; fault: ${faultAt(shape.faults, slowest.maxWaitAt)})`);
  }

  const table: Record<string, { dealt: number; failed: number; lost: number; duplicated: number }> = {};
  for (const f of shape.faults) (table[f.name] ??= { dealt: 0, failed: 0, lost: 0, duplicated: 0 }).dealt++;
  judgements.forEach((j, i) => {
    if (j.verdict === 'ok' || j.verdict === 'cut_own_frontend') return;
    const name = faultAt(shape.faults, outcomes[i]!.endedAt).split(' ')[0]!;
    const row = (table[name] ??= { dealt: 0, failed: 0, lost: 0, duplicated: 0 });
    if (j.verdict === 'failed') row.failed++;
    else if (j.verdict === 'lost') row.lost++;
    else row.duplicated++;
  });
  console.log('\nby the fault last dealt when a request ended:');
  console.table(table);
  console.table({
    sent: s.sent,
    completed: s.completed,
    failed: s.failed,
    'cut (own frontend killed)': s.cutOwnFrontend,
    'lost (streams)': s.lost,
    'duplicated (streams)': s.duplicated,
    'max wait ms': Math.round(s.maxWaitMs),
    'max kill→client error ms': Math.round(s.maxCutErrorMs),
  });
  shape.saveLogs(args['log-dir']!);
  console.log(`logs: ${args['log-dir']}`);
  console.log(
    summaryLine(s, {
      minutes: MINUTES,
      interval_s: INTERVAL_MS / 1000,
      concurrency: CONCURRENCY,
      faults: shape.faults.length,
      worker_self_exits: shape.selfExits.length,
      baseline_unstable: unstable,
      load_before: `"${loadBefore}"`,
      load_after: `"${loadAfter}"`,
    }),
  );
} finally {
  await shape.stop();
}

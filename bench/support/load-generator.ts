// The load generator of bench/compare.ts, run as its own process so its CPU is not the server's.
// One job per run, given as JSON on argv; prints one JSON result line. `pids` are the server's
// processes (a frontend and its workers), each read apart; `headers` go with every request.
//   stream: `concurrency` SSE chat streams kept open (a finished stream is replaced at once); over
//           the window, SSE events received, socket reads, and each server process's CPU time and
//           write calls.
//   unary:  `concurrency` non-streaming chats back to back; completed requests and each server
//           process's CPU time over the window.
//   ttft:   streaming chats with a ~1k-token prompt sent at a fixed `rate`; time to the first event,
//           from the moment the request is handed to the socket (the actual send time, not the
//           scheduled one), with how late each send was against its schedule. This process is new
//           for every measurement: WARMUP_REQUESTS unmeasured requests at the same rate warm its
//           JIT and open its connection first (its first requests took 8-20 ms more, every
//           alternative, the ceiling too: 1-2 of the 8 samples above p99 of 800), and every body
//           is built before the first send (no prompt strings and JSON made between sends). With
//           a `reference` (the ceiling), the reference gets the same prompts half an interval
//           after each of the target's: both sets of samples come from the same seconds of a
//           host whose speed drifts from minute to minute, so their difference is the target's own.
//           With `maxOpen`, a send due while that many requests are open waits for one to end: a
//           warm-up at a rate a shape cannot keep must not queue requests in it (queued requests
//           outlive young-generation collections, and the old generation's cleanup then lands in
//           the next job: 10-15 ms pauses in a measured job after an overloaded warm-up).
import http from 'node:http';
import { procDelta, procSnapshot, type ProcSnapshot } from './proc-stats.js';

interface Target {
  port: number;
  model: string;
  headers?: Record<string, string>;
}

export type LoadJob =
  | (Target & { kind: 'stream'; pids: number[]; concurrency: number; maxTokens: number; warmupMs: number; durationMs: number })
  | (Target & { kind: 'unary'; pids: number[]; concurrency: number; maxTokens: number; warmupMs: number; durationMs: number })
  | (Target & { kind: 'ttft'; rate: number; durationMs: number; reference?: Target; maxOpen?: number });

export interface StreamResult {
  seconds: number;
  /** SSE events (`data:` lines, [DONE] included) received in the window. */
  events: number;
  /** Events carrying a token: every event except [DONE]. */
  tokens: number;
  /** The client's socket reads (`data` events) in the window. */
  reads: number;
  /** Per server process, in the order of `pids`. */
  servers: ProcSnapshot[];
}

export interface UnaryResult {
  seconds: number;
  requests: number;
  failures: number;
  /** Per server process, in the order of `pids`. */
  servers: ProcSnapshot[];
}

export interface TtftResult {
  samplesMs: number[];
  /** The reference's samples, taken between the target's (empty without a reference). */
  referenceMs: number[];
  /** How late each measured request was sent against its schedule (ms; ~0 when the client kept up). */
  sendLateMs: number[];
  failures: number;
  /** Every request sent to the target, the unmeasured warm-up's too (what its CPU was spent on). */
  sent: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const NEWLINE = 0x0a;
const DONE = Buffer.from('data: [DONE]');

function post(target: Target, body: string | Buffer, onResponse: (res: http.IncomingMessage) => void, onError: () => void): http.ClientRequest {
  const req = http.request(
    {
      host: '127.0.0.1',
      port: target.port,
      path: '/v1/chat/completions',
      method: 'POST',
      agent,
      headers: { ...target.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    },
    onResponse,
  );
  req.on('error', onError);
  req.end(body);
  return req;
}

function chatBody(model: string, content: string, maxTokens: number, stream: boolean): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function streamJob(job: Extract<LoadJob, { kind: 'stream' }>): Promise<StreamResult> {
  const body = chatBody(job.model, 'Write a long story about the sea.', job.maxTokens, true);
  let counting = false;
  let stopped = false;
  let events = 0;
  let done = 0;
  let reads = 0;
  const open = new Set<http.ClientRequest>();
  const start = (): void => {
    if (stopped) return;
    let lastWasNewline = false;
    const req = post(
      job,
      body,
      (res) => {
        res.on('data', (buf: Buffer) => {
          if (!counting) return;
          reads++;
          // An event ends at a blank line: count "\n\n", also across two reads.
          let n = lastWasNewline && buf[0] === NEWLINE ? 1 : 0;
          for (let i = buf.indexOf(NEWLINE); i !== -1 && i < buf.length - 1; i = buf.indexOf(NEWLINE, i + 1)) if (buf[i + 1] === NEWLINE) n++;
          lastWasNewline = buf[buf.length - 1] === NEWLINE;
          events += n;
          if (buf.includes(DONE)) done++;
        });
        res.on('end', () => {
          open.delete(req);
          start();
        });
      },
      () => {
        open.delete(req);
        if (!stopped) setTimeout(start, 10);
      },
    );
    open.add(req);
  };
  for (let i = 0; i < job.concurrency; i++) start();
  await sleep(job.warmupMs);
  counting = true;
  const from = job.pids.map(procSnapshot);
  const t0 = performance.now();
  await sleep(job.durationMs);
  const to = job.pids.map(procSnapshot);
  const seconds = (performance.now() - t0) / 1000;
  counting = false;
  stopped = true;
  for (const req of open) req.destroy();
  return { seconds, events, tokens: events - done, reads, servers: from.map((f, i) => procDelta(f, to[i]!)) };
}

async function unaryJob(job: Extract<LoadJob, { kind: 'unary' }>): Promise<UnaryResult> {
  const body = chatBody(job.model, 'Say hello.', job.maxTokens, false);
  let counting = false;
  let stopped = false;
  let requests = 0;
  let failures = 0;
  const loop = async (): Promise<void> => {
    while (!stopped) {
      const ok = await new Promise<boolean>((resolve) => {
        post(
          job,
          body,
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode === 200));
          },
          () => resolve(false),
        );
      });
      if (!counting) continue;
      if (ok) requests++;
      else failures++;
    }
  };
  const loops = Array.from({ length: job.concurrency }, loop);
  await sleep(job.warmupMs);
  counting = true;
  const from = job.pids.map(procSnapshot);
  const t0 = performance.now();
  await sleep(job.durationMs);
  const to = job.pids.map(procSnapshot);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  stopped = true;
  await Promise.all(loops);
  return { seconds, requests, failures, servers: from.map((f, i) => procDelta(f, to[i]!)) };
}

/** About 1,000 Qwen3 tokens, different from the first word on for every request (no prefix reuse). */
function longPrompt(i: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 77; s++) sentences.push(`Report ${i}-${s}: the quick brown fox jumps over the lazy dog.`);
  return sentences.join(' ');
}

/** Unmeasured requests each ttft job sends first, at its rate. */
const WARMUP_REQUESTS = 50;

async function ttftJob(job: Extract<LoadJob, { kind: 'ttft' }>): Promise<TtftResult> {
  const samplesMs: number[] = [];
  const referenceMs: number[] = [];
  const sendLateMs: number[] = [];
  let failures = 0;
  const total = Math.round((job.rate * job.durationMs) / 1000);
  // The warm-up's prompts are others than the measured ones (and the same every run).
  const bodiesFor = (model: string): Buffer[] =>
    Array.from({ length: WARMUP_REQUESTS + total }, (_, k) => Buffer.from(chatBody(model, longPrompt(k < WARMUP_REQUESTS ? total + k : k - WARMUP_REQUESTS), 4, true)));
  const bodies = bodiesFor(job.model);
  const reference = job.reference;
  const referenceBodies = reference ? bodiesFor(reference.model) : [];
  const intervalMs = 1000 / job.rate;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  let open = 0;
  let ended: (() => void) | null = null;
  /** One request to `target`, due at `due`; its time to the first event goes to `into` once measured. */
  const send = (target: Target, body: Buffer, due: number, measured: boolean, into: number[]): Promise<void> =>
    new Promise<void>((settle) => {
      open++;
      const resolve = (): void => {
        open--;
        ended?.();
        settle();
      };
      const sent = performance.now();
      if (measured) sendLateMs.push(Math.max(0, sent - due));
      let first = true;
      post(
        target,
        body,
        (res) => {
          res.on('data', () => {
            if (!first) return;
            first = false;
            if (measured && res.statusCode === 200) into.push(performance.now() - sent);
          });
          res.on('end', () => {
            if (measured && (first || res.statusCode !== 200)) failures++;
            resolve();
          });
        },
        () => {
          if (measured) failures++;
          resolve();
        },
      );
    });
  const at = async (due: number): Promise<void> => {
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (job.maxOpen !== undefined && open >= job.maxOpen) await new Promise<void>((r) => (ended = r));
    ended = null;
  };
  for (let k = 0; k < bodies.length; k++) {
    const due = t0 + k * intervalMs;
    const measured = k >= WARMUP_REQUESTS;
    await at(due);
    pending.push(send(job, bodies[k]!, due, measured, samplesMs));
    if (!reference) continue;
    await at(due + intervalMs / 2);
    pending.push(send(reference, referenceBodies[k]!, due + intervalMs / 2, measured, referenceMs));
  }
  await Promise.all(pending);
  return { samplesMs, referenceMs, sendLateMs, failures, sent: bodies.length };
}

const JOBS: { [K in LoadJob['kind']]: (job: Extract<LoadJob, { kind: K }>) => Promise<unknown> } = {
  stream: streamJob,
  unary: unaryJob,
  ttft: ttftJob,
};

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as LoadJob;
  const run = JOBS[job.kind] as (j: LoadJob) => Promise<unknown>;
  const result = await run(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

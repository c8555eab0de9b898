// Is the KV indexer worth moving to worker threads (--router-event-threads > 1)? The question for
// the frontend is what its event loop pays per KV event and per find_matches. Side by side, in one
// run: (inline) the indexer applies each event on the event loop; (posted) the event loop only hands
// each event to one of N indexer threads (sharded by worker), one message per event; (batched) the
// same with one message per 64 events; queries then cost a round trip to every thread. Event-loop
// CPU per op is measured with process.cpuUsage() of this thread around the send loop only.
// Usage: node dist/bench/indexer-threads.js [--events N] [--threads N] [--rounds N]
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { KvIndexer } from '../src/router/kv/index.js';
import type { KvCacheEvent } from '../src/protocols/index.js';

const WORKERS = 64;
const CHAIN = 4;

/** Worker w's i-th store event: CHAIN blocks continuing its own sequence; every 4th event evicts. */
function eventOf(w: number, i: number): KvCacheEvent {
  const base = BigInt(w) * 1_000_000n + BigInt(i * CHAIN);
  if (i % 4 === 3) return { event_id: i, dp_rank: 0, data: { removed: { block_hashes: [base - 1n] } } };
  return {
    event_id: i,
    dp_rank: 0,
    data: {
      stored: {
        parent_hash: i === 0 ? null : base - 1n,
        blocks: Array.from({ length: CHAIN }, (_, k) => ({ block_hash: base + BigInt(k), tokens_hash: base + BigInt(k) + 7n, mm_extra_info: null })),
      },
    },
  };
}

function trace(events: number): { worker: bigint; event: KvCacheEvent }[] {
  const out: { worker: bigint; event: KvCacheEvent }[] = [];
  const next = new Array<number>(WORKERS).fill(0);
  for (let n = 0; n < events; n++) {
    const w = n % WORKERS;
    out.push({ worker: BigInt(w + 1), event: eventOf(w, next[w]!++) });
  }
  return out;
}

const query = (w: number): bigint[] => Array.from({ length: 16 }, (_, k) => BigInt(w) * 1_000_000n + BigInt(k) + 7n);

function cpuMicros(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const d = process.cpuUsage(start);
  return d.user + d.system;
}

type Msg = { kind: 'events'; items: { worker: bigint; event: KvCacheEvent }[] } | { kind: 'query'; id: number; hashes: bigint[] } | { kind: 'sync'; id: number };

if (!isMainThread) {
  const ix = new KvIndexer();
  parentPort!.on('message', (m: Msg) => {
    if (m.kind === 'events') for (const e of m.items) ix.applyEvent(e.worker, e.event);
    else if (m.kind === 'query') parentPort!.postMessage({ id: m.id, matches: ix.findMatches(m.hashes).length });
    else parentPort!.postMessage({ id: m.id });
  });
} else {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '200000' }, threads: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' } } });
  const EVENTS = Number(values.events);
  const THREADS = Number(values.threads);
  const ops = trace(EVENTS);

  const threads = Array.from({ length: THREADS }, () => new Worker(new URL(import.meta.url)));
  let nextId = 0;
  const pending = new Map<number, () => void>();
  for (const t of threads) t.on('message', (m: { id: number }) => pending.get(m.id)?.());
  const roundTrip = (t: Worker, msg: Msg & { id: number }): Promise<void> => new Promise((resolve) => {
    pending.set(msg.id, resolve);
    t.postMessage(msg);
  });
  const drained = () => Promise.all(threads.map((t) => roundTrip(t, { kind: 'sync', id: nextId++ })));

  const inline = (): { eventUs: number; queryUs: number } => {
    const ix = new KvIndexer();
    const eventUs = cpuMicros(() => { for (const o of ops) ix.applyEvent(o.worker, o.event); }) / EVENTS;
    const queryUs = cpuMicros(() => { for (let q = 0; q < 20_000; q++) ix.findMatches(query(q % WORKERS)); }) / 20_000;
    return { eventUs, queryUs };
  };
  const posted = async (batch: number): Promise<{ eventUs: number; queryMs: number }> => {
    const shards: { worker: bigint; event: KvCacheEvent }[][] = threads.map(() => []);
    const eventUs = cpuMicros(() => {
      for (const o of ops) {
        const shard = shards[Number(o.worker) % THREADS]!;
        shard.push(o);
        if (shard.length >= batch) threads[Number(o.worker) % THREADS]!.postMessage({ kind: 'events', items: shard.splice(0) });
      }
      shards.forEach((s, i) => s.length > 0 && threads[i]!.postMessage({ kind: 'events', items: s.splice(0) }));
    }) / EVENTS;
    await drained();
    const started = performance.now();
    for (let q = 0; q < 2_000; q++) await Promise.all(threads.map((t) => roundTrip(t, { kind: 'query', id: nextId++, hashes: query(q % WORKERS) })));
    return { eventUs, queryMs: (performance.now() - started) / 2_000 };
  };

  const { loadavg } = await import('node:os');
  console.log(`${EVENTS} events (64 workers, ${CHAIN}-block stores, 1 in 4 a removal), ${THREADS} indexer threads; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let round = 1; round <= Number(values.rounds); round++) {
    const a = inline();
    const b = await posted(1);
    const c = await posted(64);
    console.log(
      `round ${round}: event-loop CPU per event: inline ${a.eventUs.toFixed(2)} µs, posted ${b.eventUs.toFixed(2)} µs (${(b.eventUs / a.eventUs).toFixed(1)}×), batched ${c.eventUs.toFixed(2)} µs (${(c.eventUs / a.eventUs).toFixed(2)}×); ` +
        `find_matches: inline ${a.queryUs.toFixed(2)} µs CPU, across threads ${(b.queryMs * 1000).toFixed(0)} µs wall per query`,
    );
  }
  await Promise.all(threads.map((t) => t.terminate()));
}

// Active sequence tracking (reference/router.md §5): per worker, the prompt blocks held by
// in-flight requests (ref-counted, shared between requests), their output blocks, and the prompt
// tokens still to prefill. Block keys are safe numbers folded from the u64 seq hashes: this is a
// load estimate, and a 2^-53 collision would only shift a block count by one.
import { workerOfKey } from './worker-rank.js';

import { PrefillTracker, type PrefillPredictor } from './prefill-tracker.js';

const EXPIRY_MS = 3600_000;
const EXPIRY_CHECK_MS = 30_000;
const TWO_32 = 0x1_0000_0000;

/** A u64 hash as a map key: low 53 bits as a safe integer. */
export function blockKey(hash: bigint): number {
  return Number(BigInt.asUintN(21, hash >> 32n)) * TWO_32 + Number(BigInt.asUintN(32, hash));
}

export interface ActiveSequencesOptions {
  blockSize: number;
  /** Count output blocks as they fill (weighted by 1 - generated/expected when an OSL hint exists). */
  trackOutputBlocks?: boolean;
  /** Count not-yet-prefilled prompt tokens. */
  trackPrefillTokens?: boolean;
  /** When false, every request's blocks count as distinct (no dedup across requests). */
  assumeKvReuse?: boolean;
  /** A prefill duration model: prompt-side load then drains over time (see prefill-tracker.ts). */
  prefillPredictor?: PrefillPredictor | null;
  now?: () => number;
}

export interface NewRequest {
  requestId: string;
  worker: bigint;
  /** The request's prompt block seq hashes; null to track tokens only. */
  seqHashes: readonly bigint[] | null;
  isl: number;
  overlapBlocks: number;
  expectedOutputTokens?: number | null;
  /** Overrides the tracker's `trackPrefillTokens` for this request (a decode worker prefilling locally). */
  trackPrefillTokens?: boolean;
}

interface WorkerState {
  blocks: Map<number, number>;
  prefillTokens: number;
  /** Present with a prefill duration model: the decayed view of `prefillTokens`. */
  prefill: PrefillTracker | null;
  requests: number;
  /** Σ output-block weight of its requests. */
  outputWeight: number;
}

interface RequestState {
  worker: WorkerState;
  keys: number[];
  prefillTokens: number;
  isl: number;
  expected: number | null;
  outputBlocks: number;
  weight: number;
  startedAt: number;
}

export class ActiveSequences {
  private readonly workers = new Map<bigint, WorkerState>();
  private readonly requests = new Map<string, RequestState>();
  private readonly now: () => number;
  private lastExpiryCheck: number;
  private uniqueKey = 0;

  constructor(private readonly opts: ActiveSequencesOptions) {
    this.now = opts.now ?? Date.now;
    this.lastExpiryCheck = this.now();
  }

  activeBlocks(worker: bigint): number {
    const w = this.workers.get(worker);
    return w ? Math.round(w.blocks.size + w.outputWeight) : 0;
  }

  activePrefillTokens(worker: bigint): number {
    const w = this.workers.get(worker);
    if (!w) return 0;
    return w.prefill ? w.prefill.load(this.now()) : w.prefillTokens;
  }

  activeRequests(worker: bigint): number {
    return this.workers.get(worker)?.requests ?? 0;
  }

  /** How many of the request's blocks the worker does not hold yet. */
  newBlocks(worker: bigint, keys: readonly number[]): number {
    if (this.opts.assumeKvReuse === false) return keys.length;
    const blocks = this.workers.get(worker)?.blocks;
    if (!blocks) return keys.length;
    let n = 0;
    for (const k of keys) if (!blocks.has(k)) n++;
    return n;
  }

  /** Whether a request in flight on the worker holds the block (a key of `blockKey`). */
  holds(worker: bigint, key: number): boolean {
    return this.workers.get(worker)?.blocks.has(key) ?? false;
  }

  has(requestId: string): boolean {
    return this.requests.has(requestId);
  }

  /** Starts tracking; a duplicate id is ignored (returns false). */
  addRequest(req: NewRequest): boolean {
    this.expireStale();
    if (this.requests.has(req.requestId)) return false;
    const worker = this.worker(req.worker);
    const keys: number[] = [];
    for (const h of req.seqHashes ?? []) {
      // Without KV reuse every block is its own: fresh keys never collide with real ones' use.
      const key = this.opts.assumeKvReuse === false ? -++this.uniqueKey : blockKey(h);
      keys.push(key);
      worker.blocks.set(key, (worker.blocks.get(key) ?? 0) + 1);
    }
    const tracked = req.trackPrefillTokens ?? this.opts.trackPrefillTokens !== false;
    const prefill = tracked ? Math.max(0, req.isl - req.overlapBlocks * this.opts.blockSize) : 0;
    worker.prefillTokens += prefill;
    if (worker.prefill && prefill > 0) {
      const cached = Math.min(req.isl, req.overlapBlocks * this.opts.blockSize);
      worker.prefill.add(req.requestId, prefill, this.opts.prefillPredictor!.predictMs(prefill, cached), this.now());
    }
    worker.requests++;
    this.requests.set(req.requestId, {
      worker,
      keys,
      prefillTokens: prefill,
      isl: req.isl,
      expected: req.expectedOutputTokens ?? null,
      outputBlocks: 0,
      weight: 0,
      startedAt: this.now(),
    });
    return true;
  }

  /** The first output arrived: the request's prompt is no longer prefill load. */
  markPrefillCompleted(requestId: string): void {
    const r = this.requests.get(requestId);
    if (!r || r.prefillTokens === 0) return;
    r.worker.prefillTokens -= r.prefillTokens;
    r.worker.prefill?.complete(requestId, this.now());
    r.prefillTokens = 0;
  }

  /** Output growth: one block per block boundary crossed, decayed by progress against the OSL hint. */
  onTokensGenerated(requestId: string, generated: number): void {
    if (!this.opts.trackOutputBlocks) return;
    const r = this.requests.get(requestId);
    if (!r) return;
    const totalBlocks = Math.ceil((r.isl + generated) / this.opts.blockSize);
    const promptBlocks = Math.ceil(r.isl / this.opts.blockSize);
    r.outputBlocks = Math.max(r.outputBlocks, totalBlocks - promptBlocks);
    const decay = r.expected ? Math.max(0, 1 - generated / Math.max(r.expected, 1)) : 1;
    const weight = r.outputBlocks * decay;
    r.worker.outputWeight += weight - r.weight;
    r.weight = weight;
  }

  /** Stream end or cancel: drop prefill tokens and deref the request's blocks. */
  free(requestId: string): void {
    const r = this.requests.get(requestId);
    if (!r) return;
    this.requests.delete(requestId);
    const w = r.worker;
    w.prefillTokens -= r.prefillTokens;
    if (r.prefillTokens > 0) w.prefill?.complete(requestId, this.now());
    w.requests--;
    w.outputWeight -= r.weight;
    for (const k of r.keys) {
      const refs = w.blocks.get(k)! - 1;
      if (refs <= 0) w.blocks.delete(k);
      else w.blocks.set(k, refs);
    }
  }

  /** Forget a worker that left, every dp rank of it (keys of worker-rank.ts). */
  removeWorker(worker: bigint): void {
    for (const [key, w] of this.workers) {
      if (workerOfKey(key) !== worker) continue;
      for (const [id, r] of this.requests) if (r.worker === w) this.requests.delete(id);
      this.workers.delete(key);
    }
  }

  private worker(id: bigint): WorkerState {
    let w = this.workers.get(id);
    if (!w) {
      const prefill = this.opts.prefillPredictor ? new PrefillTracker() : null;
      this.workers.set(id, (w = { blocks: new Map(), prefillTokens: 0, prefill, requests: 0, outputWeight: 0 }));
    }
    return w;
  }

  private expireStale(): void {
    const now = this.now();
    if (now - this.lastExpiryCheck < EXPIRY_CHECK_MS) return;
    this.lastExpiryCheck = now;
    for (const [id, r] of this.requests) if (now - r.startedAt > EXPIRY_MS) this.free(id);
  }
}

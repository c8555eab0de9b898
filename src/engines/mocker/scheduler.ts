// vLLM-v1-style continuous batching over simulated KV blocks (reference/router.md §8.2). Pure state:
// the engine calls schedule(), waits the step time, then complete(). No timers here.
import type { LLMEngineOutput } from '../../protocols/index.js';
import { ENGINE_TYPES, type EngineProfile } from './engine-types.js';
import { KvBlockManager, type BlockId, type KvEventSink } from './kv-manager.js';
import type { MockerOptions } from './options.js';
import type { Sequence } from './sequence.js';

export interface ScheduledWork {
  seq: Sequence;
  /** Tokens computed for this sequence in the step: a prefill chunk, or 1 when decoding. */
  tokens: number;
}

export interface StepPlan {
  work: ScheduledWork[];
  /** Simulated duration before the speedup ratio is applied. */
  durationMs: number;
}

const HIT_RATE_WINDOW = 1000;
const NO_HASHES: readonly bigint[] = [];

export class Scheduler {
  readonly kv: KvBlockManager;
  private waiting: Sequence[] = [];
  /** Admission order; the last one is the first to be preempted. */
  private readonly running: Sequence[] = [];
  private nextPrivateBlock = 0;
  private readonly admissionLimit: number;
  private readonly hitRates = new Float64Array(HIT_RATE_WINDOW);
  private hitRateCount = 0;
  private preemptions = 0;
  private finishedCount = 0;
  private handovers = 0;
  private readonly profile: EngineProfile;
  /** Blocks reserved per running request, when the engine reserves the whole answer (TRT-LLM). */
  private readonly reservations = new Map<Sequence, number>();
  private reserved = 0;
  /**
   * The plan schedule() answers, and its work entries, reused from step to step (the engine
   * completes a plan before it schedules the next): no objects per running sequence per step.
   */
  private readonly plan: StepPlan = { work: [], durationMs: 0 };
  private readonly entries: ScheduledWork[] = [];

  constructor(
    private readonly opts: MockerOptions,
    emit: KvEventSink | null,
  ) {
    this.kv = new KvBlockManager(opts.numGpuBlocks, emit);
    this.admissionLimit = Math.floor((1 - opts.watermark) * opts.numGpuBlocks);
    this.profile = ENGINE_TYPES[opts.engineType];
  }

  get numWaiting(): number {
    return this.waiting.length;
  }

  get numRunning(): number {
    return this.running.length;
  }

  /** Preemptions since start. */
  get numPreemptions(): number {
    return this.preemptions;
  }

  /** Requests that reached their final output, since start. */
  get numFinished(): number {
    return this.finishedCount;
  }

  /** Prompts admitted as handed over by a prefill worker, since start. */
  get numHandovers(): number {
    return this.handovers;
  }

  get hasWork(): boolean {
    return this.waiting.length > 0 || this.running.length > 0;
  }

  /** Mean prefix-cache hit rate over the last 1000 admissions (0 before any). */
  get prefixHitRate(): number {
    const n = Math.min(this.hitRateCount, HIT_RATE_WINDOW);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += this.hitRates[i]!;
    return n === 0 ? 0 : sum / n;
  }

  /**
   * Added to every final output while set (`engine_data`): what the engine reports of itself with
   * each answer, e.g. the weight version an RL worker serves.
   */
  engineData: Record<string, unknown> | null = null;

  enqueue(seq: Sequence): void {
    this.waiting.push(seq);
  }

  /** Every sequence not yet finished. */
  sequences(): Sequence[] {
    return [...this.running, ...this.waiting];
  }

  /** Takes a sequence out wherever it is and releases its blocks; its channel is left to the caller. */
  remove(seq: Sequence): void {
    if (seq.finished) return;
    seq.finished = true;
    this.release(seq);
    const r = this.running.indexOf(seq);
    if (r >= 0) this.running.splice(r, 1);
    else {
      const w = this.waiting.indexOf(seq);
      if (w >= 0) this.waiting.splice(w, 1);
    }
  }

  /** The next step's work; the plan is this scheduler's own and valid until the next call. */
  schedule(): StepPlan {
    const { blockSize, maxNumBatchedTokens, maxNumSeqs, enableChunkedPrefill } = this.opts;
    let budget = maxNumBatchedTokens;
    let prefillLeft = this.profile.maxPrefillTokens ?? Infinity;
    const work = this.plan.work;
    let planned = 0;
    let preempted = false;

    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const seq = this.running[i]!;
      const remaining = seq.tokens.length - seq.numComputed;
      const n = remaining === 1 ? 1 : this.prefillChunk(remaining, budget, prefillLeft);
      if (n === 0) continue;
      let ok = this.allocate(seq, seq.numComputed + n, this.kv.capacity);
      while (!ok) {
        const victim = this.running[this.running.length - 1]!;
        if (victim === seq && this.running.length === 1) {
          // Alone and still out of blocks: the sequence outgrew the whole cache.
          this.finish(seq, seq.finalOutput('length'));
          break;
        }
        this.preempt(victim);
        preempted = true;
        if (victim === seq) break;
        ok = this.allocate(seq, seq.numComputed + n, this.kv.capacity);
      }
      if (ok) {
        this.entry(work, planned++, seq, n);
        budget -= n;
        if (remaining > 1) prefillLeft -= n;
      }
    }

    // Like vLLM, admit nothing in a step that had to preempt.
    while (!preempted && this.waiting.length > 0 && this.running.length < maxNumSeqs && budget > 0) {
      const seq = this.waiting[0]!;
      const total = seq.tokens.length;
      let cached = 0;
      if (this.opts.enablePrefixCaching) {
        seq.ensureHashes(Math.floor(total / blockSize), blockSize);
        let hit = 0;
        while (hit < seq.seqHashes.length && this.kv.isCached(seq.seqHashes[hit]!)) hit++;
        // At least one token must run through the model to sample from.
        cached = Math.min(hit * blockSize, total - 1);
      }
      // A handed-over prompt arrives computed: only its last token runs, as the first decode step.
      const computed = Math.max(cached, Math.min(seq.transferredTokens, total - 1));
      const remaining = total - computed;
      if (!enableChunkedPrefill && remaining > budget) break;
      const n = this.prefillChunk(remaining, budget, prefillLeft);
      if (n === 0) break;
      const reservation = this.reservationOf(seq);
      if (this.reserved + reservation > this.admissionLimit) break;
      seq.numComputed = computed;
      if (!this.allocate(seq, computed + n, this.admissionLimit)) {
        seq.numComputed = 0;
        break;
      }
      if (reservation > 0) {
        this.reservations.set(seq, reservation);
        this.reserved += reservation;
      }
      this.waiting.shift();
      this.running.push(seq);
      if (!seq.admitted) {
        seq.admitted = true;
        seq.cachedTokens = cached;
      }
      seq.remotePrefilled = computed > cached;
      if (seq.remotePrefilled) this.handovers++;
      seq.transferredTokens = 0;
      this.hitRates[this.hitRateCount++ % HIT_RATE_WINDOW] = cached / total;
      this.entry(work, planned++, seq, n);
      budget -= n;
      prefillLeft -= n;
    }

    // Shrinking keeps the array's storage (its elements past the end are released); setting the
    // length is a runtime call even when unchanged, so steps with the same batch skip it.
    if (work.length !== planned) work.length = planned;
    if (planned === 0 && this.running.length === 0 && this.waiting.length > 0) {
      // With the whole cache and batch free the head still does not fit: it never will.
      const seq = this.waiting[0]!;
      this.finish(seq, seq.finalOutput('length'));
    }
    this.plan.durationMs = this.stepTime(work);
    return this.plan;
  }

  /** Sets `work[i]` to the reused entry `i`, now for `seq` computing `tokens`. */
  private entry(work: ScheduledWork[], i: number, seq: Sequence, tokens: number): void {
    let entry = this.entries[i];
    if (entry === undefined) this.entries.push((entry = { seq, tokens }));
    else {
      entry.seq = seq;
      entry.tokens = tokens;
    }
    work[i] = entry;
  }

  /** Applies a step: advances KV progress, samples tokens, finishes sequences. */
  complete(plan: StepPlan): void {
    let anyFinished = false;
    for (const { seq, tokens } of plan.work) {
      if (seq.finished) continue;
      seq.numComputed += tokens;
      if (seq.numComputed < seq.tokens.length) continue;
      const out = seq.sampleNext();
      if (out.finish_reason) {
        seq.finished = true;
        this.finishedCount++;
        this.release(seq);
        anyFinished = true;
        if (this.engineData) out.engine_data = this.engineData;
      }
      seq.channel.push(out);
      if (seq.finished) seq.channel.end();
    }
    if (anyFinished) dropFinished(this.running);
  }

  private stepTime(work: readonly ScheduledWork[]): number {
    let prefillTokens = 0;
    let decoding = 0;
    let contextTokens = 0;
    for (const { seq, tokens } of work) {
      if (tokens === 1 && (seq.numComputed >= seq.promptLength || seq.remotePrefilled)) {
        decoding++;
        contextTokens += seq.numComputed;
      } else {
        prefillTokens += tokens;
      }
    }
    const { timing } = this.opts;
    const decode =
      decoding > 0
        ? timing.decodeMs({
            activeFraction: this.kv.numActiveBlocks / this.kv.capacity,
            activeKvTokens: this.kv.numActiveBlocks * this.opts.blockSize,
            meanContextLength: contextTokens / decoding,
          }) / this.opts.decodeSpeedupRatio
        : 0;
    return timing.prefillMs(prefillTokens) + decode;
  }

  /**
   * Grows the blocks a sequence holds to cover its first `m` tokens: the partial block is promoted
   * once full, then new full blocks and a new partial tail are taken. False (nothing taken) if more
   * than `maxActive` blocks would then be active.
   */
  private allocate(seq: Sequence, m: number, maxActive: number): boolean {
    const B = this.opts.blockSize;
    if (!this.opts.enablePrefixCaching) {
      const need = Math.ceil(m / B) - seq.blocks.length;
      if (need <= 0) return true;
      const ids: number[] = [];
      for (let i = 0; i < need; i++) ids.push(this.nextPrivateBlock++);
      if (!this.kv.use(ids, NO_HASHES, null, maxActive)) return false;
      seq.blocks.push(...ids);
      return true;
    }

    // The commonest decode step: the token lands in the partial block, which still has room.
    if (seq.hasPartial && m < seq.blocks.length * B) return true;
    const fullBlocks = Math.floor(m / B);
    const wantPartial = m % B !== 0;
    seq.ensureHashes(fullBlocks, B);
    let fullHeld = seq.blocks.length - (seq.hasPartial ? 1 : 0);
    const promote = seq.hasPartial && fullBlocks > fullHeld;
    const firstNew = fullHeld + (promote ? 1 : 0);
    const needPartial = wantPartial && (promote || !seq.hasPartial);
    // Sized as they come: a short prompt's admission takes one partial block, and an empty array
    // grown by one push makes room for 17.
    const ids: BlockId[] =
      firstNew < fullBlocks ? seq.seqHashes.slice(firstNew, fullBlocks) : needPartial ? [this.nextPrivateBlock++] : [];
    if (needPartial && firstNew < fullBlocks) ids.push(this.nextPrivateBlock++);
    if (ids.length === 0 && !promote) return true;

    let activated = 0;
    for (const b of ids) if (this.kv.refCount(b) === 0) activated++;
    if (this.kv.numActiveBlocks + activated > maxActive) return false;

    // The promoted block is announced before the blocks chained after it.
    if (promote) {
      const partial = seq.blocks[fullHeld] as number;
      const hash = seq.seqHashes[fullHeld]!;
      this.kv.promote(partial, hash, fullHeld > 0 ? seq.seqHashes[fullHeld - 1]! : null, seq.localHashes[fullHeld]!);
      seq.blocks[fullHeld] = hash;
      fullHeld++;
    }
    if (ids.length > 0) {
      const parent = fullHeld > 0 ? seq.seqHashes[fullHeld - 1]! : null;
      this.kv.use(ids, firstNew < fullBlocks ? seq.localHashes.slice(firstNew, fullBlocks) : NO_HASHES, parent, maxActive);
      // The manager keeps nothing of `ids`: a sequence holding no block yet takes the array itself.
      if (seq.blocks.length === 0) seq.blocks = ids;
      else for (const id of ids) seq.blocks.push(id);
    }
    seq.hasPartial = needPartial || (seq.hasPartial && !promote);
    return true;
  }

  /** Evicts a running sequence back to the front of the queue; its cached blocks stay reusable. */
  private preempt(seq: Sequence): void {
    this.preemptions++;
    this.running.splice(this.running.indexOf(seq), 1);
    this.release(seq);
    seq.resetProgress();
    this.waiting.unshift(seq);
  }

  private release(seq: Sequence): void {
    this.kv.deref(seq.blocks);
    seq.resetProgress();
    const reservation = this.reservations.get(seq);
    if (reservation !== undefined) {
      this.reserved -= reservation;
      this.reservations.delete(seq);
    }
  }

  /** Prompt tokens of one request this step: within the step's budget, the engine's prefill cap and its chunk size. */
  private prefillChunk(remaining: number, budget: number, prefillLeft: number): number {
    return Math.max(0, Math.min(remaining, budget, prefillLeft, this.profile.chunkedPrefillSize ?? Infinity));
  }

  /** Blocks an admission reserves for the whole request (TRT-LLM's guaranteed_no_evict); 0 for engines that reserve nothing. */
  private reservationOf(seq: Sequence): number {
    const reserve = this.profile.reservedOutputTokens;
    if (!reserve) return 0;
    return Math.ceil((seq.tokens.length + reserve(seq.maxTokens - seq.generatedCount)) / this.opts.blockSize);
  }

  /** Ends every sequence at once with finish reason `abort` (an RL pause in abort mode). */
  abortAll(): void {
    for (const seq of this.sequences()) this.finish(seq, seq.finalOutput('abort'));
  }

  private finish(seq: Sequence, out: LLMEngineOutput): void {
    this.remove(seq);
    if (this.engineData) out.engine_data = this.engineData;
    seq.channel.push(out);
    seq.channel.end();
  }
}

/** Removes finished sequences in place, keeping the others' order (no new array per step). */
function dropFinished(seqs: Sequence[]): void {
  let kept = 0;
  for (const seq of seqs) if (!seq.finished) seqs[kept++] = seq;
  seqs.length = kept;
}

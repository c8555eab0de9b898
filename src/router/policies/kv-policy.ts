// `--router-mode kv`: route each request to the worker with the lowest cost given how much of its
// prompt the worker has cached (the KV indexer) and how loaded it is (active sequences).
import { RoutingDecisionStats } from './decision-tally.js';
import { BYPASS_REMOTE_PREFILL, type ApproximateCachePolicy, type KvCacheEvent, type LLMEngineOutput, type PreprocessedRequest, type QueuePolicy, type RouterEvent, type SaltOptions, type SharedCacheType, type StorageTier } from '../../protocols/index.js';
import {
  ActiveSequences,
  blockKey,
  buildWorkerSelection,
  classIndex,
  computeLocalBlockHashes,
  computeSaltSeed,
  computeSequenceHashes,
  KvIndexer,
  LruPruner,
  PolicyClassQueues,
  PredictedBlocks,
  rankKey,
  rankOfKey,
  singleClassProfile,
  workerOfKey,
  TtlPruner,
  type AllBusy,
  type Candidate,
  type CostSettings,
  type LowerTier,
  type PolicyProfile,
  type PredictionPruner,
  type PrefillPredictor,
  type RemoteMatches,
  type TieredMatches,
  type WorkerOverlap,
  type WorkerSelection,
  type WorkerSelectionChoice,
} from '../kv/index.js';
import { PUBLIC_TRACKING, type TrackingHash } from '../kv/tracking/index.js';
import { hitsBeyond, SharedCachePool } from '../kv/shared-cache/index.js';
import { SessionPrefixIndex, type SessionPrefixView } from '../kv/session-prefix/index.js';
import type { StreamObserver } from '../observed-stream.js';
import { maxBatchedTokensOf, type AnyInstance, type DpRanks } from '../worker-instance.js';
import type { KvEventSink, ReplicaSharing } from './capabilities.js';
import type { RouterPolicy, WorkerPreview } from './policy.js';
import { ReplicaSync, type EventBus } from '../shared-state/replica-sync.js';

export interface KvRouterOptions extends CostSettings {
  blockSize: number;
  /** Consume workers' KV events; false selects approximate mode (predicted blocks, forgotten by `approximateCachePolicy`). */
  useKvEvents: boolean;
  ttlSecs: number;
  /** Approximate mode: predictions expire after `ttlSecs` (ttl), or are bounded by each worker rank's KV capacity (lru). */
  approximateCachePolicy: ApproximateCachePolicy;
  /** With KV events: predict each decision in a side indexer for this long (upstream's predict-on-route); null: off. */
  predictedTtlSecs: number | null;
  trackActiveBlocks: boolean;
  trackOutputBlocks: boolean;
  assumeKvReuse: boolean;
  trackPrefillTokens: boolean;
  /** `--router-prefill-load-model ais`: predicted prefill durations make prompt-side load drain; null: static load. */
  prefillPredictor: PrefillPredictor | null;
  /** Without a policy profile: queue requests while every worker's prefill load exceeds this × max_num_batched_tokens; null: no queue. */
  queueThreshold: number | null;
  queuePolicy: QueuePolicy;
  /** The policy classes of a policy file; null: the one class of `queueThreshold` and `queuePolicy`. */
  policyProfile: PolicyProfile | null;
  /** The worker-selection instance of this router's stage; null: the built-in cost model with these weights. */
  workerSelection: WorkerSelectionChoice | null;
  /** `--use-remote-indexer`: overlaps come from another router's served indexer; null: the local indexer. */
  remoteIndexer: RemoteMatches | null;
  /** `--router-tracking-hash`: the identities active sequences are tracked by (the indexers keep the public hashes). */
  trackingHash: TrackingHash;
  /** `--shared-cache-type`: hicache keeps a shared-pool index from workers' `external` tier events and credits its hits. */
  sharedCacheType: SharedCacheType;
  /**
   * `--enable-session-prefix-index`: keep each session's block lineage per worker, from the KV
   * events and each routed request's cached prefix. Nothing in routing reads it (as upstream).
   */
  sessionPrefixIndex: boolean;
  random?: () => number;
  now?: () => number;
}

export const DEFAULT_KV_ROUTER_OPTIONS: Readonly<Omit<KvRouterOptions, 'blockSize'>> = Object.freeze({
  overlapScoreCredit: 1,
  overlapScoreCreditDecay: 0,
  prefillLoadScale: 1,
  decodeActiveRequestWeight: 0,
  hostCacheHitWeight: 0.75,
  diskCacheHitWeight: 0.25,
  sharedCacheMultiplier: 0.5,
  temperature: 0,
  useKvEvents: true,
  ttlSecs: 120,
  approximateCachePolicy: 'ttl',
  predictedTtlSecs: null,
  trackActiveBlocks: true,
  trackOutputBlocks: false,
  assumeKvReuse: true,
  trackPrefillTokens: true,
  prefillPredictor: null,
  queueThreshold: null,
  queuePolicy: 'fcfs',
  policyProfile: null,
  workerSelection: null,
  remoteIndexer: null,
  trackingHash: PUBLIC_TRACKING,
  sharedCacheType: 'none',
  sessionPrefixIndex: false,
});

/** Approximate mode's pruners by `--router-approximate-cache-policy`. */
const PREDICTION_PRUNERS: { readonly [P in ApproximateCachePolicy]: (policy: KvRouterPolicy) => PredictionPruner } = {
  ttl: ({ options: o }) => new TtlPruner(o.ttlSecs * 1000, undefined, undefined, o.now),
  lru: (policy) => new LruPruner((key) => policy.capacityOf(key), (key, block) => policy.sequences.holds(key, block)),
};

/** What routing learned about one request, kept from select() until it is dispatched. */
interface Analysis {
  localHashes: bigint[];
  /** The tracking identities of the prompt's blocks (`--router-tracking-hash`); null without active-block tracking. */
  seqHashes: bigint[] | null;
  keys: number[];
  /** Device prefix blocks by (worker, dp rank) key (kv/worker-rank.ts). */
  overlaps: Map<bigint, number>;
  /** Prefix blocks past the device prefix in the host and disk tiers (absent without such events). */
  hostOverlaps: Map<bigint, number> | null;
  diskOverlaps: Map<bigint, number> | null;
  /** The prompt's block positions the shared pool holds; null without a shared pool (or no credit for it). */
  sharedHits: number[] | null;
}

const NO_MATCHES: TieredMatches = Object.freeze({ device: [], lower: [] });

/** One routing decision, for logs and tests. */
export interface KvDecision {
  workerId: bigint;
  dpRank: number;
  overlapBlocks: number;
  /** Null when the worker-selection policy ranks without costs. */
  cost: number | null;
}

export class KvRouterPolicy implements RouterPolicy, KvEventSink, ReplicaSharing {
  /** Device-tier blocks. */
  readonly indexer = new KvIndexer();
  /** Host and disk tier blocks, created on a worker's first event of that tier. */
  private readonly lowerTiers = new Map<LowerTier, KvIndexer>();
  /** `--shared-cache-type hicache`: the blocks any worker can fetch from the external pool. */
  readonly sharedPool: SharedCachePool | null;
  readonly sequences: ActiveSequences;
  private replica: ReplicaSync | null = null;
  readonly options: Readonly<KvRouterOptions>;
  /** Approximate mode: the blocks predicted from this router's own decisions, in `indexer`. */
  private readonly predicted: PredictedBlocks | null;
  /** Predict-on-route beside KV events: decisions predicted in a side indexer for a TTL. */
  private readonly side: PredictedBlocks | null;
  /** Events are applied but the event plane is down: predictions stand in for them meanwhile. */
  private interrupted = false;
  /**
   * What was predicted into the event-fed indexer while events were interrupted: expired after the
   * TTL unless the worker reports it (its events settle it) once they flow again.
   */
  private interim: { blocks: PredictedBlocks; pruner: TtlPruner } | null = null;
  private readonly pending = new WeakMap<PreprocessedRequest, Analysis>();
  /** The dp rank chosen for a request on a worker that advertises ranks, sent with it. */
  private readonly chosenRanks = new WeakMap<PreprocessedRequest, number>();
  /** With a remote indexer: each request's hashes and the matches fetched for them by prepare(). */
  private readonly fetched = new WeakMap<PreprocessedRequest, { localHashes: bigint[]; matches: TieredMatches }>();
  private knownWorkers = new Set<bigint>();
  private liveInstances: readonly AnyInstance[] = [];
  /** Requests waiting for prefill capacity, by policy class (only classes with a busy line queue). */
  readonly queue: PolicyClassQueues;
  /** How a worker is picked among the candidates (the stage's worker-selection instance, or the cost model). */
  readonly selection: WorkerSelection;
  /** Every decision's predicted overlap, read by /metrics when scraped. */
  readonly decisionStats = new RoutingDecisionStats();
  /** The most recent decision (observability and tests). */
  lastDecision: KvDecision | null = null;
  /** Its KV event sink (itself), which the registry offers the wiring. */
  readonly kvEvents: KvEventSink = this;
  /** `--enable-session-prefix-index`: the sessions' lineage; null when off. */
  private readonly sessionIndex: SessionPrefixIndex | null;
  /** With a remote indexer: fetches the request's matches before the chain routes it (select stays synchronous). */
  readonly prepare?: (request: PreprocessedRequest, signal: AbortSignal) => Promise<void>;

  constructor(options: Partial<KvRouterOptions> & { blockSize: number }) {
    const given = { ...DEFAULT_KV_ROUTER_OPTIONS, ...options };
    this.selection = buildWorkerSelection(given.workerSelection, given);
    // A dynamo-default-cost-fn instance's weights are this router's weights, everywhere they are read.
    this.options = Object.freeze({ ...given, ...this.selection.cost });
    const o = this.options;
    this.sequences = new ActiveSequences({
      blockSize: o.blockSize,
      trackOutputBlocks: o.trackOutputBlocks,
      trackPrefillTokens: o.trackPrefillTokens,
      assumeKvReuse: o.assumeKvReuse,
      prefillPredictor: o.prefillPredictor,
      now: o.now,
    });
    // A consumer of a remote indexer predicts nothing locally: the serving router holds the cache state.
    this.predicted = o.useKvEvents || o.remoteIndexer ? null : new PredictedBlocks(this.indexer, PREDICTION_PRUNERS[o.approximateCachePolicy](this));
    this.side =
      o.useKvEvents && !o.remoteIndexer && o.predictedTtlSecs !== null
        ? new PredictedBlocks(new KvIndexer(), new TtlPruner(o.predictedTtlSecs * 1000, undefined, undefined, o.now))
        : null;
    const remote = o.remoteIndexer;
    // Pure load balancing (no credit for any tier's hits) has nothing to ask the remote indexer.
    const weighsHits = this.readsDevice || o.hostCacheHitWeight > 0 || o.diskCacheHitWeight > 0;
    if (remote && weighsHits) this.prepare = (request, signal) => this.fetchMatches(remote, request, signal);
    this.sharedPool = o.sharedCacheType === 'hicache' ? new SharedCachePool() : null;
    this.sessionIndex = o.sessionPrefixIndex ? new SessionPrefixIndex() : null;
    this.queue = new PolicyClassQueues(o.policyProfile ?? singleClassProfile(o.queueThreshold, o.queuePolicy), o.now);
  }

  /** What a policy reads of the session prefix index (upstream's lineage accessors); null when it is off. */
  get sessionPrefixIndex(): SessionPrefixView | null {
    return this.sessionIndex;
  }

  /** The KV blocks the worker of a (worker, dp rank) key advertises (each rank has as many); null: none advertised. */
  capacityOf(key: bigint): number | null {
    const worker = workerOfKey(key);
    return this.liveInstances.find((i) => i.id === worker)?.capacity?.().kvTotalBlocks ?? null;
  }

  /** Device overlap matters: it earns credit, or the selection reads it. */
  private get readsDevice(): boolean {
    return this.options.overlapScoreCredit > 0 || this.selection.readsOverlap;
  }

  /**
   * The request's policy class decides: wait while every candidate is over its busy line (or
   * others of its class already wait). A class whose queue is full refuses the request (529).
   */
  admission(instances: readonly AnyInstance[], request: PreprocessedRequest, signal: AbortSignal): Promise<void> | null {
    if (this.queue.inert) return null;
    const isl = request.token_ids.length;
    // The cached share (best over the candidates) classifies and orders a request; only a bucket matrix needs it up front.
    let cached = 0;
    const cachedTokens = (): number => {
      let overlap = 0;
      for (const blocks of this.analyze(request).overlaps.values()) overlap = Math.max(overlap, blocks);
      return Math.min(isl, overlap * this.options.blockSize);
    };
    if (this.queue.classifiesByCache) cached = cachedTokens();
    const index = classIndex(this.queue.profile, request.routing?.policy_class, isl - cached);
    const arrival = {
      priorityJump: request.routing?.priority ?? 0,
      rawTokens: isl,
      get cachedTokens(): number {
        return cached;
      },
      workers: instances.length,
      signal,
    };
    return this.queue.admit(index, arrival, (busy) => {
      const all = this.allBusy(instances)(busy);
      if (all && !this.queue.classifiesByCache) cached = cachedTokens();
      return all;
    });
  }

  /** Whether every rank of every instance is over a class's busy line. */
  private allBusy(instances: readonly AnyInstance[]): AllBusy {
    return (busy) =>
      instances.length > 0 &&
      instances.every((inst) => ranksOf(inst.dpRanks, null).every((rank) => busy(this.sequences.activePrefillTokens(rankKey(inst.id, rank)), maxBatchedTokensOf(inst))));
  }

  queuedRequests(): number {
    return this.queue.size;
  }

  /** Load freed somewhere: let the next queued request try. */
  private releaseQueued(): void {
    if (this.queue.size > 0) this.queue.releaseOne(this.allBusy(this.liveInstances));
  }

  /** False in approximate mode and with a remote indexer: this router keeps no event-fed indexer. */
  get appliesEvents(): boolean {
    return this.options.useKvEvents && this.options.remoteIndexer === null;
  }

  /**
   * A worker's KV event (ignored in approximate mode, where the router predicts instead). Host and
   * disk tiers go to their own indexers; `external` (the shared pool) feeds the shared-pool index
   * with `--shared-cache-type hicache`, and is not used otherwise. Device events also move the
   * session prefix index, once the indexer has them.
   */
  applyKvEvent(workerId: bigint, event: KvCacheEvent, tier: StorageTier = 'device', sessionId?: string): void {
    if (!this.appliesEvents) return;
    if (tier === 'device') {
      if (this.interim) this.settlePredictions(this.interim.pruner, rankKey(workerId, event.dp_rank), event);
      this.indexer.applyEvent(workerId, event);
      this.sessionIndex?.applyEvent(workerId, event, sessionId);
    } else if (tier === 'external') {
      this.sharedPool?.apply(event);
    } else {
      let ix = this.lowerTiers.get(tier);
      if (!ix) this.lowerTiers.set(tier, (ix = new KvIndexer()));
      ix.applyEvent(workerId, event);
    }
  }

  setEventsFlowing(flowing: boolean): void {
    if (!this.appliesEvents) return;
    this.interrupted = !flowing;
    if (flowing || this.interim) return;
    const pruner = new TtlPruner(this.options.ttlSecs * 1000, undefined, undefined, this.options.now);
    this.interim = { blocks: new PredictedBlocks(this.indexer, pruner), pruner };
  }

  /** Predictions made while events were interrupted give way to what the worker reports. */
  private settlePredictions(pruner: TtlPruner, key: bigint, event: KvCacheEvent): void {
    const data = event.data;
    if (data === 'cleared') pruner.forgetKey(key);
    else if ('stored' in data) pruner.confirm(key, data.stored.blocks.map((b) => b.block_hash));
  }

  /** Every tier's cached blocks as single-block store events (the router snapshot's content). */
  dumpKvEvents(): RouterEvent[] {
    const out = this.indexer.dumpEvents();
    for (const [tier, ix] of this.lowerTiers) for (const e of ix.dumpEvents()) out.push({ ...e, storage_tier: tier });
    return out;
  }

  /**
   * Loads a snapshot's events. Its workers count as known, so those that are not live are dropped
   * at the next instance change.
   */
  restoreKvEvents(events: readonly RouterEvent[]): void {
    for (const e of events) {
      this.applyKvEvent(e.worker_id, e.event, e.storage_tier, e.session_id);
      this.knownWorkers.add(e.worker_id);
    }
  }

  /**
   * Shares this router's active sequences with its replicas over `bus` (`--router-replica-sync`);
   * `scope` is the workers' `namespace.{ns}.component.{c}`. Resolves once subscribed; the result stops it.
   */
  async startReplicaSync(bus: EventBus, scope: string, routerId: bigint, timing?: { heartbeatMs?: number; peerTimeoutMs?: number }): Promise<() => void> {
    const sync = new ReplicaSync(bus, this.sequences, {
      scope,
      routerId,
      blockSize: this.options.blockSize,
      now: this.options.now,
      onRemoteChange: () => this.releaseQueued(),
      ...timing,
    });
    await sync.start();
    this.replica = sync;
    return () => {
      if (this.replica === sync) this.replica = null;
      sync.stop();
    };
  }

  /**
   * Scores every (worker, dp rank) pair (a worker advertises its ranks in its card; a request
   * naming `dp_rank` is scored on that rank only) and picks one by the stage's worker selection.
   */
  select<I extends AnyInstance>(instances: readonly I[], request: PreprocessedRequest): I {
    const { a, chosen, candidate, cost } = this.rank(instances, request);
    const o = this.options;
    this.lastDecision = { workerId: chosen.inst.id, dpRank: chosen.rank, overlapBlocks: candidate.overlapBlocks, cost };
    this.decisionStats.decided(candidate.overlapBlocks, o.blockSize, request.token_ids.length);
    this.pending.set(request, a);
    if (chosen.inst.dpRanks && (request.routing?.dp_rank ?? null) === null) this.chosenRanks.set(request, chosen.rank);
    return chosen.inst;
  }

  preview(instances: readonly AnyInstance[], request: PreprocessedRequest): WorkerPreview {
    const { a, chosen, candidate } = this.rank(instances, request);
    const o = this.options;
    const credit =
      candidate.overlapBlocks +
      o.hostCacheHitWeight * (candidate.hostOverlapBlocks ?? 0) +
      o.diskCacheHitWeight * (candidate.diskOverlapBlocks ?? 0) +
      (o.sharedCacheMultiplier ?? 0) * (candidate.sharedBeyondBlocks ?? 0);
    return {
      instance: chosen.inst,
      dpRank: chosen.inst.dpRanks ? chosen.rank : undefined,
      cachedTokens: Math.min(request.token_ids.length, Math.floor(credit * o.blockSize)),
      activePrefillTokens: this.sequences.activePrefillTokens(chosen.key),
      projectedBlocks: this.sequences.activeBlocks(chosen.key) + this.sequences.newBlocks(chosen.key, a.keys),
    };
  }

  /** The pair the worker selection picks, with what it was scored on. */
  private rank<I extends AnyInstance>(instances: readonly I[], request: PreprocessedRequest) {
    const a = this.analyze(request);
    const isl = request.token_ids.length;
    const o = this.options;
    const pinnedRank = request.routing?.dp_rank ?? null;
    const pairs: { inst: I; rank: number; key: bigint }[] = [];
    for (const inst of instances) for (const rank of ranksOf(inst.dpRanks, pinnedRank)) pairs.push({ inst, rank, key: rankKey(inst.id, rank) });
    const candidates: Candidate[] = pairs.map(({ inst, rank, key }) => ({
      overlapBlocks: a.overlaps.get(key) ?? 0,
      hostOverlapBlocks: a.hostOverlaps?.get(key) ?? 0,
      diskOverlapBlocks: a.diskOverlaps?.get(key) ?? 0,
      sharedBeyondBlocks: a.sharedHits ? hitsBeyond(a.sharedHits, a.overlaps.get(key) ?? 0) : 0,
      activePrefillTokens: o.trackPrefillTokens ? this.sequences.activePrefillTokens(key) : 0,
      potentialDecodeBlocks: o.trackActiveBlocks ? this.sequences.activeBlocks(key) + this.sequences.newBlocks(key, a.keys) : 0,
      activeRequests: this.sequences.activeRequests(key),
      treeSize: this.indexer.treeSize(inst.id, rank),
    }));
    const { index, cost } = this.selection.pick(candidates, isl, o.blockSize, o.random);
    return { a, chosen: pairs[index]!, candidate: candidates[index]!, cost };
  }

  dpRankOf(_instance: AnyInstance, request: PreprocessedRequest): number | undefined {
    return this.chosenRanks.get(request);
  }

  /** Every tier's matches of a prompt's local block hashes (`--serve-indexer` queries). */
  tieredMatches(localHashes: readonly bigint[], deviceOnly: boolean): TieredMatches {
    this.pruneExpired();
    const lower: [LowerTier, WorkerOverlap[]][] = deviceOnly ? [] : [...this.lowerTiers].map(([tier, ix]) => [tier, ix.findMatches(localHashes)]);
    return { device: this.indexer.findMatches(localHashes), lower };
  }

  /**
   * Another router's decision, in approximate mode: its worker is predicted to hold the prompt's
   * blocks for the TTL, as for this router's own decisions. False when this router applies KV events.
   */
  recordRoutingDecision(worker: bigint, localHashes: readonly bigint[], seqHashes: readonly bigint[]): boolean {
    if (!this.predicted) return false;
    this.predicted.predict(worker, localHashes, seqHashes);
    return true;
  }

  overlapBlocks(instance: AnyInstance, request: PreprocessedRequest): number {
    return this.pending.get(request)?.overlaps.get(this.keyOf(instance, request)) ?? 0;
  }

  /** The (worker, dp rank) key a request dispatched to `instance` runs on: the chosen rank, the named one, or the worker's first. */
  private keyOf(instance: AnyInstance, request: PreprocessedRequest): bigint {
    const rank = this.chosenRanks.get(request) ?? request.routing?.dp_rank ?? instance.dpRanks?.start ?? 0;
    return rankKey(instance.id, rank);
  }

  track(instance: AnyInstance, request: PreprocessedRequest, requestId: string): StreamObserver {
    const a = this.pending.get(request) ?? this.analyze(request);
    this.pending.delete(request);
    const key = this.keyOf(instance, request);
    this.fetched.delete(request);
    this.recordSessionMatch(request, key, a.localHashes);
    const o = this.options;
    // Predictions live in indexers, which key blocks by the public chain whatever identities tracking uses.
    let publicChain: bigint[] | null = o.trackingHash.keyed ? null : a.seqHashes;
    for (const predictions of [this.predicted, this.side, this.interrupted ? this.interim?.blocks : null]) {
      predictions?.predict(key, a.localHashes, (publicChain ??= computeSequenceHashes(a.localHashes)));
    }
    const seqHashes = o.trackActiveBlocks ? a.seqHashes : null;
    const isl = request.token_ids.length;
    const overlap = a.overlaps.get(key) ?? 0;
    const expected = request.routing?.expected_output_tokens ?? null;
    // A decode worker prefilling locally (conditional disaggregation) carries that prompt load after all.
    const localPrefill = request.annotations?.includes(BYPASS_REMOTE_PREFILL) === true;
    this.sequences.addRequest({
      requestId,
      worker: key,
      seqHashes,
      isl,
      overlapBlocks: overlap,
      expectedOutputTokens: expected,
      ...(localPrefill ? { trackPrefillTokens: true } : {}),
    });
    const replica = this.replica;
    replica?.added(
      requestId,
      key,
      { token_sequence: seqHashes, isl, overlap, track_prefill_tokens: o.trackPrefillTokens, expected_output_tokens: expected },
      request.routing?.lora_name ?? null,
    );
    const sequences = this.sequences;
    let generated = 0;
    let prefilling = true;
    return {
      onOutput: (out: LLMEngineOutput): void => {
        if (prefilling) {
          prefilling = false;
          sequences.markPrefillCompleted(requestId);
          replica?.prefillCompleted(requestId, key);
          this.releaseQueued();
        }
        generated += out.token_ids.length;
        sequences.onTokensGenerated(requestId, generated);
      },
      onEnd: (): void => {
        sequences.free(requestId);
        replica?.freed(requestId, key);
        this.releaseQueued();
      },
    };
  }

  /**
   * A dispatched request of a session (chosen or pinned): the deepest block its worker rank already
   * holds of the prompt becomes the session's frontier there. The main indexer's blocks count (KV
   * events, or this router's own predictions in approximate mode), not predict-on-route's.
   */
  private recordSessionMatch(request: PreprocessedRequest, key: bigint, localHashes: readonly bigint[]): void {
    const sessionId = request.routing?.session_id;
    if (!this.sessionIndex || sessionId === undefined || sessionId === null) return;
    const worker = { workerId: workerOfKey(key), dpRank: rankOfKey(key) };
    const matched = this.indexer.deepestMatchedHash(localHashes, worker.workerId, worker.dpRank);
    if (matched !== null) this.sessionIndex.updateSessionFromMatch(sessionId, worker, matched);
  }

  onInstancesChanged(instances: readonly AnyInstance[]): void {
    const live = new Set(instances.map((i) => i.id));
    for (const w of this.knownWorkers) {
      if (live.has(w)) continue;
      this.indexer.removeWorker(w);
      this.sessionIndex?.removeWorker(w);
      for (const ix of this.lowerTiers.values()) ix.removeWorker(w);
      this.sequences.removeWorker(w);
      this.predicted?.removeWorker(w, false);
      this.side?.removeWorker(w, true);
      this.interim?.blocks.removeWorker(w, false);
    }
    this.knownWorkers = live;
    this.liveInstances = instances;
    this.releaseQueued();
  }

  private localHashesOf(request: PreprocessedRequest): bigint[] {
    // A prompt shorter than one block has no block to hash: no salt to work out either.
    if (request.token_ids.length < this.options.blockSize) return [];
    return computeLocalBlockHashes(request.token_ids, this.options.blockSize, computeSaltSeed(saltsOf(request)));
  }

  private async fetchMatches(remote: RemoteMatches, request: PreprocessedRequest, signal: AbortSignal): Promise<void> {
    const localHashes = this.localHashesOf(request);
    this.fetched.set(request, { localHashes, matches: (await remote.query(localHashes, signal)) ?? NO_MATCHES });
  }

  /** What the local indexers hold of a prompt; the device tier only when its overlap is read. */
  private localMatches(localHashes: readonly bigint[]): TieredMatches {
    // Pure load balancing (credit 0, a selection that reads no overlap) does not consult the device indexer.
    const o = this.options;
    const device = this.readsDevice ? this.deviceMatches(localHashes) : [];
    // A tier that earns no credit is not consulted either.
    const weights: Readonly<Record<LowerTier, number>> = { host_pinned: o.hostCacheHitWeight, disk: o.diskCacheHitWeight };
    const lower: [LowerTier, WorkerOverlap[]][] = [];
    for (const [tier, ix] of this.lowerTiers) if (weights[tier] !== 0) lower.push([tier, ix.findMatches(localHashes)]);
    return { device, lower };
  }

  private analyze(request: PreprocessedRequest): Analysis {
    this.pruneExpired();
    const o = this.options;
    const fetched = this.fetched.get(request);
    const localHashes = fetched?.localHashes ?? this.localHashesOf(request);
    // A remote indexer's matches were fetched by prepare(); a request routed without it (pinned) has none.
    const found = o.remoteIndexer ? (fetched?.matches ?? NO_MATCHES) : this.localMatches(localHashes);
    const seqHashes = o.trackActiveBlocks ? o.trackingHash.sequenceHashes(request.token_ids, o.blockSize, saltsOf(request), localHashes) : null;
    const overlaps = new Map<bigint, number>();
    if (this.readsDevice) {
      for (const m of found.device) overlaps.set(rankKey(m.workerId, m.dpRank), m.blocks);
    }
    const tier = (name: LowerTier): readonly WorkerOverlap[] | undefined => found.lower.find(([t]) => t === name)?.[1];
    const hostOverlaps = this.tierOverlaps(tier('host_pinned'), o.hostCacheHitWeight, [overlaps]);
    const diskOverlaps = this.tierOverlaps(tier('disk'), o.diskCacheHitWeight, [overlaps, hostOverlaps]);
    // The pool keys blocks by the public chain, whatever identities tracking uses.
    const sharedHits =
      this.sharedPool && (o.sharedCacheMultiplier ?? 0) > 0
        ? this.sharedPool.hits(seqHashes && !o.trackingHash.keyed ? seqHashes : computeSequenceHashes(localHashes))
        : null;
    return { localHashes, seqHashes, keys: seqHashes ? seqHashes.map(blockKey) : [], overlaps, hostOverlaps, diskOverlaps, sharedHits };
  }

  /**
   * Per worker, the prefix blocks a lower tier holds beyond what the faster tiers already cover
   * (the tier's contiguous prefix minus the faster tiers' longest one): offloaded blocks are
   * usually copies of device blocks, so only the extension saves prefill.
   */
  private tierOverlaps(
    matches: readonly WorkerOverlap[] | undefined,
    weight: number,
    faster: readonly (Map<bigint, number> | null)[],
  ): Map<bigint, number> | null {
    if (!matches || weight === 0) return null;
    const out = new Map<bigint, number>();
    for (const m of matches) {
      const key = rankKey(m.workerId, m.dpRank);
      // Faster tiers' maps hold successive extensions, so their sum is the prefix they cover.
      let covered = 0;
      for (const f of faster) covered += f?.get(key) ?? 0;
      if (m.blocks > covered) out.set(key, m.blocks - covered);
    }
    return out;
  }

  /** Device matches: the events' indexer, with predict-on-route's predictions where they reach further. */
  private deviceMatches(localHashes: readonly bigint[]): WorkerOverlap[] {
    const found = this.indexer.findMatches(localHashes);
    if (!this.side) return found;
    const best = new Map<bigint, WorkerOverlap>(found.map((m) => [rankKey(m.workerId, m.dpRank), m]));
    for (const m of this.side.indexer.findMatches(localHashes)) {
      const key = rankKey(m.workerId, m.dpRank);
      const known = best.get(key);
      if (!known || m.blocks > known.blocks) best.set(key, known ? { ...known, blocks: m.blocks } : m);
    }
    return [...best.values()];
  }

  private pruneExpired(): void {
    this.predicted?.prune();
    this.side?.prune();
    this.interim?.blocks.prune();
  }
}

/** The ranks a request may run on at a worker: the one it names, else every rank the worker advertises. */
const RANK_ZERO: readonly number[] = [0];

function ranksOf(ranks: DpRanks | undefined, pinned: number | null): readonly number[] {
  if (pinned !== null) return [pinned];
  if (!ranks) return RANK_ZERO;
  return Array.from({ length: ranks.size }, (_, i) => ranks.start + i);
}

/** The request's hash salts: its LoRA adapter and cache salt. */
function saltsOf(request: PreprocessedRequest): SaltOptions {
  return { loraName: request.routing?.lora_name, cacheNamespace: request.routing?.cache_salt };
}

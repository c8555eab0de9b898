// What a router policy is and what it may offer its caller. A policy declares its needs as
// capabilities on itself (a KV event sink, an admission queue), so callers wire by what is there
// and never test a policy's class.
import type { KvCacheEvent, LLMEngineOutput, PreprocessedRequest, RouterEvent, StorageTier } from '../../protocols/index.js';
import type { StreamObserver } from '../observed-stream.js';
import type { EventBus } from '../shared-state/replica-sync.js';
import type { AnyInstance } from '../worker-instance.js';
import type { RoutingDecisionStats } from './decision-tally.js';
import type { TieredMatches } from './kv-policy.js';

/**
 * What a policy that learns from workers' KV events offers: the caller subscribes it to the event
 * plane, may share its load with other router replicas, and may save and restore its state.
 */
export interface KvEventSink {
  /** False in approximate mode: events are ignored, so there is no indexer state worth saving. */
  readonly appliesEvents: boolean;
  applyKvEvent(workerId: bigint, event: KvCacheEvent, tier?: StorageTier): void;
  /** The cached blocks as single-block store events (a snapshot's content). */
  dumpKvEvents(): RouterEvent[];
  restoreKvEvents(events: readonly RouterEvent[]): void;
  /** Every tier's matches of a prompt's local block hashes (what `--serve-indexer` answers). */
  tieredMatches(localHashes: readonly bigint[], deviceOnly: boolean): TieredMatches;
  /** Another router's decision, in approximate mode; false when events are applied instead. */
  recordRoutingDecision(worker: bigint, localHashes: readonly bigint[], seqHashes: readonly bigint[]): boolean;
  /** Shares active sequences with the other replicas on `bus`; resolves to the function that stops it. */
  startReplicaSync(bus: EventBus, scope: string, routerId: bigint, timing?: { heartbeatMs?: number; peerTimeoutMs?: number }): Promise<() => void>;
}

/** Picks an instance for a request. One implementation per router mode, chosen by name. */
export interface RouterPolicy<Req = PreprocessedRequest, Out = LLMEngineOutput> {
  select<I extends AnyInstance>(instances: readonly I[], request: Req): I;
  /** The request was dispatched to `instance` (chosen by select, or pinned): observe its stream. */
  track?(instance: AnyInstance, request: Req, requestId: string): StreamObserver<Out> | null;
  /** The dp rank of `instance` the policy chose for `request` (kv), sent with it; undefined when it chose none. */
  dpRankOf?(instance: AnyInstance, request: Req): number | undefined;
  /** Blocks of `request`'s prompt predicted cached on `instance`, when the policy predicts it (kv). */
  overlapBlocks?(instance: AnyInstance, request: Req): number;
  /** Asynchronous work before the policy selects (a remote indexer's answer); absent: none, at no cost. */
  readonly prepare?: (request: Req, signal: AbortSignal) => Promise<void>;
  /** The router queue: a promise to wait on before the policy selects, or null to go on at once. */
  admission?(instances: readonly AnyInstance[], request: Req, signal: AbortSignal): Promise<void> | null;
  /** Present when the policy predicts KV cache hits: its decisions' overlap, for /metrics. */
  readonly decisionStats?: RoutingDecisionStats;
  /** Requests `admission` holds back now (read by /metrics at scrape time). */
  queuedRequests?(): number;
  onInstancesChanged?(instances: readonly AnyInstance[]): void;
  /** Present when the policy learns from workers' KV events. */
  readonly kvEvents?: KvEventSink;
}

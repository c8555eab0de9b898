// What a policy may offer the wiring around it beyond routing. Its row in the registry says which
// it offers (`provides`), so the wiring asks the registry's answer, never the policy's shape, and
// the policy interface knows nothing of KV events.
import type { KvCacheEvent, RouterEvent, StorageTier } from '../../protocols/index.js';
import type { TieredMatches } from '../kv/index.js';
import type { EventBus } from '../shared-state/replica-sync.js';

/**
 * A policy that learns from its workers' KV events: the wiring subscribes it to the event plane,
 * may save and restore its state (snapshots) and may answer other routers from it (served indexer).
 */
export interface KvEventSink {
  /** False in approximate mode: events are ignored, so there is no indexer state worth saving. */
  readonly appliesEvents: boolean;
  /** `sessionId`: the session the event's stored blocks were cached for, when its publisher says. */
  applyKvEvent(workerId: bigint, event: KvCacheEvent, tier?: StorageTier, sessionId?: string): void;
  /** The cached blocks as single-block store events (a snapshot's content). */
  dumpKvEvents(): RouterEvent[];
  restoreKvEvents(events: readonly RouterEvent[]): void;
  /** Every tier's matches of a prompt's local block hashes (what `--serve-indexer` answers). */
  tieredMatches(localHashes: readonly bigint[], deviceOnly: boolean): TieredMatches;
  /** Another router's decision, in approximate mode; false when events are applied instead. */
  recordRoutingDecision(worker: bigint, localHashes: readonly bigint[], seqHashes: readonly bigint[]): boolean;
  /**
   * The event plane is down (`false`) or back (`true`). While it is down the sink predicts what its
   * own decisions cached, as approximate mode does, instead of going blind to new prompts.
   */
  setEventsFlowing(flowing: boolean): void;
}

/** A policy that tracks its requests' active sequences: it may share them with the other router replicas. */
export interface ReplicaSharing {
  /** Shares active sequences with the other replicas on `bus`; resolves to the function that stops it. */
  startReplicaSync(bus: EventBus, scope: string, routerId: bigint, timing?: { heartbeatMs?: number; peerTimeoutMs?: number }): Promise<() => void>;
}

/** What a built policy offers the wiring, as its registry row says; absent: not offered. */
export interface PolicyProvides {
  /** Fed with the workers' KV events (the row needs `kvEvents`). */
  readonly kvEvents?: KvEventSink;
  readonly replicas?: ReplicaSharing;
}

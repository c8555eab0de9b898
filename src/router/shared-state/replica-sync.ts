// Router replica sync (`--router-replica-sync`, reference/router.md §5): every kv router publishes
// the lifecycle of its requests (add with prompt blocks, prefill complete, free) on the component's
// `active_sequences_events` subject, and applies its peers' events to its own ActiveSequences, so
// several frontends see one another's load. Output-block growth is not synced (as upstream).
// Extension over upstream: routers also publish `RouterAlive` heartbeats and `RouterLeft` on stop,
// so a peer that leaves (or dies: no heartbeat within the timeout) has its requests dropped.
import { asU64, parseJsonLossless, stringifyJsonWithU64 } from '../../runtime/codecs/index.js';
import { rankKey, rankOfKey, workerOfKey, type ActiveSequences } from '../kv/index.js';

/** The slice of the runtime's EventPlane replica sync needs. */
export interface EventBus {
  publish(subject: string, payload: Uint8Array | string): void;
  subscribe(subject: string, handler: (payload: Buffer) => void): Promise<() => void>;
}

export const ACTIVE_SEQUENCES_TOPIC = 'active_sequences_events';

export interface AddRequestData {
  /** Prompt block seq hashes (null when active blocks are not tracked). */
  token_sequence: bigint[] | null;
  isl: number;
  overlap: number;
  track_prefill_tokens: boolean;
  expected_output_tokens: number | null;
}

export type SequenceEventData = { AddRequest: AddRequestData } | 'MarkPrefillCompleted' | 'Free' | 'RouterAlive' | 'RouterLeft';

/** Upstream ActiveSequenceEvent (JSON, u64 fields as bare numbers). */
export interface ActiveSequenceEvent {
  request_id: string;
  worker: { worker_id: bigint; dp_rank: number };
  data: SequenceEventData;
  router_id: bigint;
  lora_name: string | null;
}

export function encodeSequenceEvent(e: ActiveSequenceEvent): string {
  return stringifyJsonWithU64(e);
}

/** Decodes an ActiveSequenceEvent; null for anything malformed. */
export function decodeSequenceEvent(text: string): ActiveSequenceEvent | null {
  let v: Record<string, unknown>;
  try {
    v = parseJsonLossless(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || typeof v.request_id !== 'string') return null;
  const routerId = asU64(v.router_id);
  const worker = v.worker as Record<string, unknown> | undefined;
  const workerId = asU64(worker?.worker_id);
  if (routerId === null || workerId === null) return null;
  const dpRank = typeof worker!.dp_rank === 'number' ? worker!.dp_rank : 0;
  let data: SequenceEventData;
  if (v.data === 'MarkPrefillCompleted' || v.data === 'Free' || v.data === 'RouterAlive' || v.data === 'RouterLeft') {
    data = v.data;
  } else {
    const add = (v.data as Record<string, unknown> | null)?.AddRequest as Record<string, unknown> | undefined;
    if (!add || typeof add.isl !== 'number') return null;
    const seq = add.token_sequence;
    if (seq !== null && seq !== undefined && !Array.isArray(seq)) return null;
    const hashes = Array.isArray(seq) ? seq.map(asU64) : null;
    if (hashes?.includes(null)) return null;
    data = {
      AddRequest: {
        token_sequence: hashes as bigint[] | null,
        isl: add.isl,
        overlap: typeof add.overlap === 'number' ? add.overlap : 0,
        track_prefill_tokens: add.track_prefill_tokens !== false,
        expected_output_tokens: typeof add.expected_output_tokens === 'number' ? add.expected_output_tokens : null,
      },
    };
  }
  return {
    request_id: v.request_id,
    worker: { worker_id: workerId, dp_rank: dpRank },
    data,
    router_id: routerId,
    lora_name: typeof v.lora_name === 'string' ? v.lora_name : null,
  };
}

export interface ReplicaSyncOptions {
  /** `namespace.{ns}.component.{c}`: the workers' component scope. */
  scope: string;
  routerId: bigint;
  blockSize: number;
  heartbeatMs?: number;
  /** A peer silent for this long is dropped with its requests. */
  peerTimeoutMs?: number;
  now?: () => number;
  /** Called after a peer's event changed the load (lets queued requests retry). */
  onRemoteChange?: () => void;
}

interface Peer {
  lastSeen: number;
  requests: Set<string>;
}

const NO_WORKER = { worker_id: 0n, dp_rank: 0 };

function wireWorker(key: bigint): ActiveSequenceEvent['worker'] {
  return { worker_id: workerOfKey(key), dp_rank: rankOfKey(key) };
}

export class ReplicaSync {
  readonly subject: string;
  private readonly peers = new Map<bigint, Peer>();
  private readonly now: () => number;
  private readonly heartbeatMs: number;
  private readonly peerTimeoutMs: number;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly bus: EventBus,
    private readonly sequences: ActiveSequences,
    private readonly opts: ReplicaSyncOptions,
  ) {
    this.subject = `${opts.scope}.${ACTIVE_SEQUENCES_TOPIC}`;
    this.now = opts.now ?? Date.now;
    this.heartbeatMs = opts.heartbeatMs ?? 1000;
    this.peerTimeoutMs = opts.peerTimeoutMs ?? 5 * this.heartbeatMs;
  }

  async start(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe(this.subject, (payload) => {
      const e = decodeSequenceEvent(payload.toString('utf8'));
      if (e) this.apply(e);
    });
    this.beat();
    this.timer = setInterval(() => {
      this.beat();
      this.dropSilentPeers();
    }, this.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.publish('', NO_WORKER, 'RouterLeft');
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Peers heard from and not yet dropped. */
  get peerCount(): number {
    return this.peers.size;
  }

  /** `worker` is a (worker, dp rank) key of kv/worker-rank.ts, here and below. */
  added(requestId: string, worker: bigint, data: AddRequestData, loraName: string | null): void {
    this.publish(requestId, wireWorker(worker), { AddRequest: data }, loraName);
  }

  prefillCompleted(requestId: string, worker: bigint): void {
    this.publish(requestId, wireWorker(worker), 'MarkPrefillCompleted');
  }

  freed(requestId: string, worker: bigint): void {
    this.publish(requestId, wireWorker(worker), 'Free');
  }

  /** Applies a peer's event; the router's own events (echoed by the plane) are ignored. */
  apply(e: ActiveSequenceEvent): void {
    if (e.router_id === this.opts.routerId) return;
    if (e.data === 'RouterLeft') {
      this.dropPeer(e.router_id);
      return;
    }
    let peer = this.peers.get(e.router_id);
    if (!peer) this.peers.set(e.router_id, (peer = { lastSeen: 0, requests: new Set() }));
    peer.lastSeen = this.now();
    if (e.data === 'RouterAlive') return;
    if (e.data === 'Free') {
      if (!peer.requests.delete(e.request_id)) return;
      this.sequences.free(e.request_id);
    } else if (e.data === 'MarkPrefillCompleted') {
      if (!peer.requests.has(e.request_id)) return;
      this.sequences.markPrefillCompleted(e.request_id);
    } else {
      const add = e.data.AddRequest;
      const added = this.sequences.addRequest({
        requestId: e.request_id,
        worker: rankKey(e.worker.worker_id, e.worker.dp_rank),
        seqHashes: add.token_sequence,
        isl: add.isl,
        // A peer that does not track prefill tokens sends none: count the whole prompt as cached.
        overlapBlocks: add.track_prefill_tokens ? add.overlap : Math.ceil(add.isl / this.opts.blockSize),
        expectedOutputTokens: add.expected_output_tokens,
      });
      if (!added) return;
      peer.requests.add(e.request_id);
    }
    this.opts.onRemoteChange?.();
  }

  private dropPeer(routerId: bigint): void {
    const peer = this.peers.get(routerId);
    if (!peer) return;
    this.peers.delete(routerId);
    for (const id of peer.requests) this.sequences.free(id);
    if (peer.requests.size > 0) this.opts.onRemoteChange?.();
  }

  /** Drops peers silent for longer than the timeout (run by the heartbeat timer). */
  dropSilentPeers(): void {
    const cutoff = this.now() - this.peerTimeoutMs;
    for (const [id, peer] of this.peers) if (peer.lastSeen < cutoff) this.dropPeer(id);
  }

  private beat(): void {
    this.publish('', NO_WORKER, 'RouterAlive');
  }

  private publish(requestId: string, worker: ActiveSequenceEvent['worker'], data: SequenceEventData, loraName: string | null = null): void {
    this.bus.publish(
      this.subject,
      encodeSequenceEvent({ request_id: requestId, worker, data, router_id: this.opts.routerId, lora_name: loraName }),
    );
  }
}

// `--enable-session-prefix-index` (upstream's SessionPrefixIndexer): each session's block lineage,
// per worker rank, kept apart from the physical indexer. A session's frontier on a worker is the
// deepest block it is known to have there (a routed request's cached prefix, or a chain the worker
// stored for it); the blocks above it are its lineage, shared with other sessions in one forest.
// A removed block moves the worker's frontiers standing on or under it back to its parent; a clear
// (or the worker leaving) drops that worker's frontiers. Sessions leave only by recency: past
// `maxSessions`, the least recently active one goes, with the blocks no other session keeps.
import type { KvCacheEvent } from '../../../protocols/index.js';
import type { WorkerWithDpRank } from '../indexer.js';
import { rankKey, rankOfKey, workerOfKey } from '../worker-rank.js';
import { LineageForest, type ChainRejection, type LogicalNode, type NodeId } from './lineage-forest.js';

/** Upstream's default: far more sessions than a router serves at once, yet a fixed bound when sessions never end. */
export const DEFAULT_MAX_SESSIONS = 16_384;

/** One frontier of a session: the deepest block it has on one worker rank. */
export interface SessionFrontier {
  readonly worker: WorkerWithDpRank;
  readonly node: NodeId;
}

/** A lineage query's answer: root-first block-hash chains, or the anchor the index does not know. */
export type LineageAnswer = { readonly lineages: bigint[][] } | { readonly unknownAnchor: bigint };

/** What a policy reads of the index (upstream's KvHintPolicyContext accessors), and its counts. */
export interface SessionPrefixView {
  readonly maxSessions: number;
  readonly sessionCount: number;
  readonly nodeCount: number;
  /** Sessions dropped as least recently active to stay within `maxSessions`. */
  readonly evictedSessions: number;
  /** Stored chains refused (a block under a second parent, or under itself); the index was left unchanged. */
  readonly rejectedChains: number;
  getNodeFromHash(blockHash: bigint): NodeId | null;
  getNode(id: NodeId): LogicalNode | null;
  /** Every frontier of the session, unordered; empty for an unknown session. */
  getSessionFrontiers(sessionId: string): SessionFrontier[];
  /**
   * The session's chains on one worker rank, root first; with an anchor, only the chains through
   * it, each starting there. An unknown session has none; an unknown anchor is an answer of its own.
   */
  getSessionBlockLineage(sessionId: string, worker: WorkerWithDpRank, anchor?: bigint): LineageAnswer;
}

type Frontiers = Map<bigint, Set<NodeId>>;

export class SessionPrefixIndex implements SessionPrefixView {
  readonly maxSessions: number;
  evictedSessions = 0;
  rejectedChains = 0;
  private readonly forest = new LineageForest();
  /** Session → worker rank key → its frontier nodes there. Map order is recency: least recently active first. */
  private readonly sessions = new Map<string, Frontiers>();
  /** Worker rank key → frontier node → the sessions standing on it (what removals and clears look up). */
  private readonly byWorker = new Map<bigint, Map<NodeId, Set<string>>>();

  /** A cap below one is raised to one: an index that kept nothing would be no index. */
  constructor(maxSessions = DEFAULT_MAX_SESSIONS) {
    this.maxSessions = Math.max(1, Math.floor(maxSessions));
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  get nodeCount(): number {
    return this.forest.size;
  }

  getNodeFromHash(blockHash: bigint): NodeId | null {
    return this.forest.idOf(blockHash);
  }

  getNode(id: NodeId): LogicalNode | null {
    return this.forest.node(id);
  }

  getSessionFrontiers(sessionId: string): SessionFrontier[] {
    const out: SessionFrontier[] = [];
    for (const [key, nodes] of this.sessions.get(sessionId) ?? []) {
      for (const node of nodes) out.push({ worker: { workerId: workerOfKey(key), dpRank: rankOfKey(key) }, node });
    }
    return out;
  }

  getSessionBlockLineage(sessionId: string, worker: WorkerWithDpRank, anchor?: bigint): LineageAnswer {
    const anchorNode = anchor === undefined ? null : this.forest.idOf(anchor);
    if (anchor !== undefined && anchorNode === null) return { unknownAnchor: anchor };
    const lineages: bigint[][] = [];
    for (const frontier of this.sessions.get(sessionId)?.get(rankKey(worker.workerId, worker.dpRank)) ?? []) {
      const path = this.forest.pathToRoot(frontier);
      const start = anchorNode === null ? 0 : path.indexOf(anchorNode);
      if (start >= 0) lineages.push(path.slice(start).map((id) => this.forest.hashOf(id)));
    }
    return { lineages };
  }

  /** A routed request's cached prefix on its worker ends at `blockHash`: true when the session's frontier there moved. */
  updateSessionFromMatch(sessionId: string, worker: WorkerWithDpRank, blockHash: bigint): boolean {
    return this.advance(sessionId, rankKey(worker.workerId, worker.dpRank), this.forest.resolveOrInsertRoot(blockHash));
  }

  /** The worker stored a chain for the session under `parentHash`: true when its frontier there moved. */
  updateSessionFromStoredBlocks(sessionId: string, worker: WorkerWithDpRank, parentHash: bigint | null, blockHashes: readonly bigint[]): boolean | ChainRejection {
    if (blockHashes.length === 0) return false;
    const leaf = this.forest.addChain(parentHash, blockHashes);
    if (typeof leaf !== 'number') {
      this.rejectedChains++;
      return leaf;
    }
    return this.advance(sessionId, rankKey(worker.workerId, worker.dpRank), leaf);
  }

  /**
   * The worker removed blocks: each of its frontiers standing on or under one moves back to the
   * parent of the shallowest removed block on its chain (or goes, at a root). Returns how many
   * session frontiers moved. The blocks no frontier reaches any more are reclaimed.
   */
  updateSessionFromRemovedBlocks(worker: WorkerWithDpRank, blockHashes: readonly bigint[]): number {
    const key = rankKey(worker.workerId, worker.dpRank);
    const onWorker = this.byWorker.get(key);
    if (!onWorker) return 0;
    const removed = new Set<NodeId>();
    for (const hash of blockHashes) {
      const id = this.forest.idOf(hash);
      if (id !== null) removed.add(id);
    }
    const moves: { sessionId: string; from: NodeId; to: NodeId | null }[] = [];
    for (const cut of removed) {
      // Under a shallower removed block, the frontiers move above that one.
      if (this.forest.hasAncestorIn(cut, removed)) continue;
      const to = this.forest.parentOf(cut);
      this.forest.forEachInSubtree(cut, (node) => {
        for (const sessionId of onWorker.get(node) ?? []) moves.push({ sessionId, from: node, to });
      });
    }
    for (const { sessionId, from, to } of moves) this.recede(sessionId, key, from, to);
    return moves.length;
  }

  /** The worker rank's cache was cleared: its session frontiers go. Returns how many. */
  clearWorkerFrontiers(worker: WorkerWithDpRank): number {
    return this.clearKey(rankKey(worker.workerId, worker.dpRank));
  }

  /** The worker left: the frontiers of every rank of it go. Returns how many. */
  removeWorker(workerId: bigint): number {
    let cleared = 0;
    for (const key of [...this.byWorker.keys()]) if (workerOfKey(key) === workerId) cleared += this.clearKey(key);
    return cleared;
  }

  /**
   * A device-tier KV event of the worker: a chain stored for a session (the event names it)
   * advances that session; removals and clears move back every session's frontiers on the rank.
   */
  applyEvent(workerId: bigint, event: KvCacheEvent, sessionId: string | undefined): void {
    const worker = { workerId, dpRank: event.dp_rank };
    const data = event.data;
    if (data === 'cleared') this.clearWorkerFrontiers(worker);
    else if ('removed' in data) this.updateSessionFromRemovedBlocks(worker, data.removed.block_hashes);
    else if (sessionId !== undefined) {
      this.updateSessionFromStoredBlocks(sessionId, worker, data.stored.parent_hash, data.stored.blocks.map((b) => b.block_hash));
    }
  }

  /** Keeps only the deepest frontier of each chain: a block at or above one the session has there is no advance. */
  private advance(sessionId: string, key: bigint, node: NodeId): boolean {
    const frontiers = this.sessions.get(sessionId)?.get(key);
    if (frontiers && [...frontiers].some((f) => this.forest.isAncestorOrSelf(node, f))) {
      // A repeated prefix is no advance, but the session is active.
      this.touch(sessionId);
      return false;
    }
    const subsumed = frontiers ? [...frontiers].filter((f) => this.forest.isAncestorOrSelf(f, node)) : [];
    // The new frontier is bound first, so that dropping the old ones reclaims nothing it stands on.
    this.bind(sessionId, key, node);
    for (const f of subsumed) this.unbind(sessionId, key, f);
    this.touch(sessionId);
    this.enforceCap();
    return true;
  }

  /** A removal moved `from` back to `to`: not the session's own activity, so its recency stays. */
  private recede(sessionId: string, key: bigint, from: NodeId, to: NodeId | null): void {
    const frontiers = this.sessions.get(sessionId)?.get(key);
    if (!frontiers?.has(from)) return;
    const reached = to === null || !this.forest.has(to) || [...frontiers].some((f) => f !== from && this.forest.isAncestorOrSelf(to, f));
    if (!reached) this.bind(sessionId, key, to);
    this.unbind(sessionId, key, from);
  }

  private clearKey(key: bigint): number {
    const onWorker = this.byWorker.get(key);
    if (!onWorker) return 0;
    const bindings: [string, NodeId][] = [];
    for (const [node, sessionIds] of onWorker) for (const sessionId of sessionIds) bindings.push([sessionId, node]);
    for (const [sessionId, node] of bindings) this.unbind(sessionId, key, node);
    return bindings.length;
  }

  private bind(sessionId: string, key: bigint, node: NodeId): void {
    let frontiers = this.sessions.get(sessionId);
    if (!frontiers) this.sessions.set(sessionId, (frontiers = new Map()));
    let nodes = frontiers.get(key);
    if (!nodes) frontiers.set(key, (nodes = new Set()));
    if (nodes.has(node)) return;
    nodes.add(node);
    this.forest.addFrontierRef(node);
    let onWorker = this.byWorker.get(key);
    if (!onWorker) this.byWorker.set(key, (onWorker = new Map()));
    let sessionIds = onWorker.get(node);
    if (!sessionIds) onWorker.set(node, (sessionIds = new Set()));
    sessionIds.add(sessionId);
  }

  /** Drops one frontier; a session left with none goes, and blocks nothing keeps are reclaimed. */
  private unbind(sessionId: string, key: bigint, node: NodeId): void {
    const frontiers = this.sessions.get(sessionId);
    const nodes = frontiers?.get(key);
    if (!frontiers || !nodes?.delete(node)) return;
    if (nodes.size === 0) frontiers.delete(key);
    if (frontiers.size === 0) this.sessions.delete(sessionId);
    const onWorker = this.byWorker.get(key)!;
    const sessionIds = onWorker.get(node)!;
    sessionIds.delete(sessionId);
    if (sessionIds.size === 0) onWorker.delete(node);
    if (onWorker.size === 0) this.byWorker.delete(key);
    this.forest.dropFrontierRef(node);
  }

  private touch(sessionId: string): void {
    const frontiers = this.sessions.get(sessionId);
    if (!frontiers) return;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, frontiers);
  }

  private enforceCap(): void {
    while (this.sessions.size > this.maxSessions) {
      const [oldest, frontiers] = this.sessions.entries().next().value!;
      for (const [key, nodes] of [...frontiers]) for (const node of [...nodes]) this.unbind(oldest, key, node);
      this.evictedSessions++;
    }
  }
}

// The logical block forest of the session prefix index: one node per block hash a session reached,
// with its parent link and the two counts that keep it alive (session frontiers pointing at it,
// children under it). A worker evicting a block removes nothing here; a node goes only when no
// frontier and no child keeps it (reclaim).

/** A node's handle. Never reused, so a handle kept past its node's removal cannot name another node. */
export type NodeId = number;

/** One block of the forest, as read. */
export interface LogicalNode {
  /** The block hash as workers report it (KV events' block_hash). */
  readonly blockHash: bigint;
  /** Its parent; null for a root. */
  readonly parent: NodeId | null;
  /** Session frontiers (per worker) that stand on this block. */
  readonly frontierRefs: number;
  readonly childCount: number;
}

/** Why a stored chain was refused (the forest is left as it was). */
export interface ChainRejection {
  /** `conflicting_parent`: the block is already under another parent; `cyclic_parent`: the block would become its own ancestor. */
  readonly reason: 'conflicting_parent' | 'cyclic_parent';
  readonly block: bigint;
}

interface Node {
  readonly blockHash: bigint;
  parent: NodeId | null;
  frontierRefs: number;
  /**
   * Kept so that a removed block's frontiers are found below it, not by walking up from every
   * frontier; null until the first child (most nodes are leaves or links of one chain).
   */
  children: Set<NodeId> | null;
}

export class LineageForest {
  private readonly nodes = new Map<NodeId, Node>();
  private readonly byHash = new Map<bigint, NodeId>();
  private nextId: NodeId = 1;

  get size(): number {
    return this.nodes.size;
  }

  idOf(blockHash: bigint): NodeId | null {
    return this.byHash.get(blockHash) ?? null;
  }

  node(id: NodeId): LogicalNode | null {
    const n = this.nodes.get(id);
    return n ? { blockHash: n.blockHash, parent: n.parent, frontierRefs: n.frontierRefs, childCount: n.children?.size ?? 0 } : null;
  }

  has(id: NodeId): boolean {
    return this.nodes.has(id);
  }

  hashOf(id: NodeId): bigint {
    return this.nodes.get(id)!.blockHash;
  }

  parentOf(id: NodeId): NodeId | null {
    return this.nodes.get(id)!.parent;
  }

  /** The node of a block, made a root when unknown (a matched block exists even though a match names no parent). */
  resolveOrInsertRoot(blockHash: bigint): NodeId {
    return this.byHash.get(blockHash) ?? this.insert(blockHash, null);
  }

  /**
   * A chain of blocks stored under `parentHash`, known nodes reused (a root known only from a
   * match is grafted under the parent the chain gives it): its last node, or why the whole chain
   * was refused before anything changed.
   */
  addChain(parentHash: bigint | null, blockHashes: readonly bigint[]): NodeId | ChainRejection {
    const rejection = this.check(parentHash, blockHashes);
    if (rejection) return rejection;
    let parent = parentHash === null ? null : this.resolveOrInsertRoot(parentHash);
    for (const hash of blockHashes) {
      const known = this.byHash.get(hash);
      let id: NodeId;
      if (known === undefined) id = this.insert(hash, parent);
      else {
        id = known;
        const n = this.nodes.get(known)!;
        if (n.parent === null && parent !== null) {
          n.parent = parent;
          this.adopt(parent, known);
        }
      }
      parent = id;
    }
    return parent!;
  }

  /** The nodes from the root down to `tail`. */
  pathToRoot(tail: NodeId): NodeId[] {
    const path: NodeId[] = [];
    // The walk is bounded by the node count, so a corrupted parent cycle cannot hang it.
    for (let at: NodeId | null = tail; at !== null && path.length < this.nodes.size; at = this.nodes.get(at)!.parent) path.push(at);
    return path.reverse();
  }

  /** Whether `candidate` is `node` or one of its ancestors. */
  isAncestorOrSelf(candidate: NodeId, node: NodeId): boolean {
    let steps = 0;
    for (let at: NodeId | null = node; at !== null && steps <= this.nodes.size; at = this.nodes.get(at)!.parent, steps++) {
      if (at === candidate) return true;
    }
    return false;
  }

  /** Visits `root` and every node under it. */
  forEachInSubtree(root: NodeId, visit: (id: NodeId) => void): void {
    const stack = [root];
    for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
      visit(id);
      for (const child of this.nodes.get(id)!.children ?? []) stack.push(child);
    }
  }

  /** Whether a proper ancestor of `id` is in `set`. */
  hasAncestorIn(id: NodeId, set: ReadonlySet<NodeId>): boolean {
    let steps = 0;
    for (let at = this.nodes.get(id)!.parent; at !== null && steps <= this.nodes.size; at = this.nodes.get(at)!.parent, steps++) {
      if (set.has(at)) return true;
    }
    return false;
  }

  addFrontierRef(id: NodeId): void {
    this.nodes.get(id)!.frontierRefs++;
  }

  /** One frontier less on `id`; the node and its ancestors go while nothing else keeps them. */
  dropFrontierRef(id: NodeId): void {
    const n = this.nodes.get(id)!;
    n.frontierRefs--;
    let at: NodeId | null = id;
    while (at !== null) {
      const node = this.nodes.get(at);
      if (!node || node.frontierRefs > 0 || (node.children?.size ?? 0) > 0) return;
      this.nodes.delete(at);
      this.byHash.delete(node.blockHash);
      if (node.parent !== null) this.nodes.get(node.parent)!.children!.delete(at);
      at = node.parent;
    }
  }

  private insert(blockHash: bigint, parent: NodeId | null): NodeId {
    const id = this.nextId++;
    this.nodes.set(id, { blockHash, parent, frontierRefs: 0, children: null });
    this.byHash.set(blockHash, id);
    if (parent !== null) this.adopt(parent, id);
    return id;
  }

  private adopt(parent: NodeId, child: NodeId): void {
    const p = this.nodes.get(parent)!;
    (p.children ??= new Set()).add(child);
  }

  /**
   * A chain is refused when a block already has another parent, or would sit under itself. Only a
   * graft (a known root put under the chain) can close a cycle through the forest: when that root
   * is the root of the chain's parent. Otherwise a repeat within the chain, or the parent itself.
   */
  private check(parentHash: bigint | null, blockHashes: readonly bigint[]): ChainRejection | null {
    const inChain = new Set<bigint>();
    let parentRoot: NodeId | null | undefined;
    let expected = parentHash;
    for (const block of blockHashes) {
      if (block === parentHash || inChain.has(block)) return { reason: 'cyclic_parent', block };
      const known = this.byHash.get(block);
      if (known !== undefined) {
        const recorded = this.nodes.get(known)!.parent;
        if (recorded !== null && this.hashOf(recorded) !== expected) return { reason: 'conflicting_parent', block };
        if (recorded === null && expected !== null && known === (parentRoot ??= this.rootOf(parentHash))) return { reason: 'cyclic_parent', block };
      }
      inChain.add(block);
      expected = block;
    }
    return null;
  }

  /** The root above the node of `blockHash`; null when the block is unknown (it would become a root itself). */
  private rootOf(blockHash: bigint | null): NodeId | null {
    const id = blockHash === null ? undefined : this.byHash.get(blockHash);
    if (id === undefined) return null;
    return this.pathToRoot(id)[0]!;
  }
}

export {
  XXH3_SEED,
  computeBlockHash,
  computeSaltSeed,
  computeLocalBlockHashes,
  computeEagleLocalBlockHashes,
  chainSequenceHash,
  computeSequenceHashes,
  type SaltOptions,
} from '../../protocols/index.js';
export { RadixTree, TreeStatus, ROOT, type MatchResult } from './radix-tree.js';
export { KvIndexer, TREE_STATUS_NAMES, type WorkerWithDpRank, type WorkerOverlap } from './indexer.js';
export { decodeVllmEventBatch, decodeVllmSequence, vllmHashToU64, type VllmEventBatch, type VllmDecodeOptions } from './vllm-events.js';
export { splitU64Into, joinU64 } from './u64.js';
export { ActiveSequences, blockKey, type ActiveSequencesOptions, type NewRequest } from './active-sequences.js';
export { PrefillTracker, type PrefillPredictor } from './prefill-tracker.js';
export { workerCosts, pickCandidate, type SelectorWeights, type Candidate } from './selector.js';
export { TtlPruner, DEFAULT_MAX_TREE_SIZE, DEFAULT_PRUNE_TARGET_RATIO, type ExpiredBlock, type PredictionPruner } from './ttl-pruner.js';
export { LruPruner } from './lru-pruner.js';
export { PredictedBlocks } from './predicted-blocks.js';
export { PendingQueue, type QueuedRequest } from './pending-queue.js';
export { encodeKvSnapshot, decodeKvSnapshot } from './snapshot.js';
export { rankKey, workerOfKey, rankOfKey } from './worker-rank.js';
export type { LowerTier, TieredMatches, RemoteMatches } from './tiered-matches.js';
export {
  BUILT_IN_SELECTION,
  WORKER_SELECTION_TYPES,
  buildWorkerSelection,
  isWorkerSelectionType,
  selectionParameters,
  type CostSettings,
  type SelectionParameter,
  type WorkerSelection,
  type WorkerSelectionChoice,
  type WorkerSelectionType,
} from './worker-selection.js';
export {
  PolicyClassQueues,
  classIndex,
  singleClassProfile,
  type AllBusy,
  type Arrival,
  type ClassMatrix,
  type PolicyClassSpec,
  type PolicyProfile,
} from './policy-classes.js';

// What a router policy is: it picks an instance for each request, and may hook the steps of the
// routing chain around that choice. What it offers beyond routing (a KV event sink, replica
// sharing) is declared by its registry row (capabilities.ts), not here.
import type { LLMEngineOutput, PreprocessedRequest } from '../../protocols/index.js';
import type { StreamObserver } from '../observed-stream.js';
import type { AnyInstance } from '../worker-instance.js';
import type { RoutingDecisionStats } from './decision-tally.js';

/** Picks an instance for a request. One implementation per router mode, chosen by name. */
export interface RouterPolicy<Req = PreprocessedRequest, Out = LLMEngineOutput> {
  select<I extends AnyInstance>(instances: readonly I[], request: Req): I;
  onInstancesChanged?(instances: readonly AnyInstance[]): void;
  /** Asynchronous work before the policy selects (a remote indexer's answer); absent: none, at no cost. */
  readonly prepare?: (request: Req, signal: AbortSignal) => Promise<void>;
  /** The router queue: a promise to wait on before the policy selects, or null to go on at once. */
  admission?(instances: readonly AnyInstance[], request: Req, signal: AbortSignal): Promise<void> | null;
  /** Requests `admission` holds back now (read by /metrics at scrape time). */
  queuedRequests?(): number;
  /** The request was dispatched to `instance` (chosen by select, or pinned): observe its stream. */
  track?(instance: AnyInstance, request: Req, requestId: string): StreamObserver<Out> | null;
  /** The dp rank of `instance` the policy chose for `request`, sent with it; undefined when it chose none. */
  dpRankOf?(instance: AnyInstance, request: Req): number | undefined;
  /** Blocks of `request`'s prompt predicted cached on `instance`, when the policy predicts it. */
  overlapBlocks?(instance: AnyInstance, request: Req): number;
  /** Present when the policy predicts cache hits: its decisions' overlap, for /metrics. */
  readonly decisionStats?: RoutingDecisionStats;
  /**
   * Where the request would go among `instances` now, and what the policy tracks of that worker,
   * without dispatching or counting a decision (conditional disaggregation asks before routing).
   */
  preview?(instances: readonly AnyInstance[], request: Req): WorkerPreview;
}

/** A worker the policy would pick, as its load tracking sees it. */
export interface WorkerPreview {
  readonly instance: AnyInstance;
  /** The dp rank it would choose on that worker; undefined when the worker advertises none. */
  readonly dpRank: number | undefined;
  /** Prompt tokens cached on it, counting lower tiers at their weights. */
  readonly cachedTokens: number;
  /** Its prompt tokens not yet prefilled. */
  readonly activePrefillTokens: number;
  /** Its active KV blocks with the blocks this request would add. */
  readonly projectedBlocks: number;
}

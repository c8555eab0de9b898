// Worker-selection policies of the KV router by type name (upstream's `worker_selection` catalog of
// a router policy file): each picks one candidate from the costs' inputs. `default` (no choice) is
// the built-in cost model of selector.ts with the frontend's weights; a policy instance of
// `dynamo-default-cost-fn` is that model with some weights of its own; `dynamo-two-tier-cost-fn`
// ranks on load first, then prefix overlap. Each type declares its parameters as data, so whoever
// reads a policy file can check them before anything is built.
import { pickCandidate, workerCosts, type Candidate, type SelectorWeights } from './selector.js';

/** What the built-in cost model reads: the weights and the sampling temperature. */
export interface CostSettings extends SelectorWeights {
  temperature: number;
}

/** One parameter of a policy type: a number, within the bounds given (inclusive). */
export interface SelectionParameter {
  readonly kind: 'number' | 'integer';
  readonly min: number;
  readonly max?: number;
  readonly help: string;
}

/** A policy instance as configured: its type and the parameters it sets (the others keep their defaults). */
export interface WorkerSelectionChoice {
  readonly type: WorkerSelectionType;
  /** The instance's name in the policy file, for logs. */
  readonly name: string;
  readonly parameters: Readonly<Record<string, number>>;
}

/** A policy built for one router. */
export interface WorkerSelection {
  /** The cost settings the router uses (the default cost model's, after the instance's parameters). */
  readonly cost: CostSettings;
  /** True when the pick reads device overlap even where the cost model would not (credit 0). */
  readonly readsOverlap: boolean;
  pick(candidates: readonly Candidate[], isl: number, blockSize: number, random?: () => number): Pick;
}

/** The chosen candidate, and its cost when the policy ranks by cost (null otherwise). */
export interface Pick {
  readonly index: number;
  readonly cost: number | null;
}

interface SelectionType {
  readonly help: string;
  readonly parameters: Readonly<Record<string, SelectionParameter>>;
  build(parameters: Readonly<Record<string, number>>, base: CostSettings): WorkerSelection;
}

const NON_NEGATIVE = (help: string): SelectionParameter => ({ kind: 'number', min: 0, help });
const SHARE = (help: string): SelectionParameter => ({ kind: 'number', min: 0, max: 1, help });

/** The default cost model over `cost`. */
function costModel(cost: CostSettings): WorkerSelection {
  return {
    cost,
    readsOverlap: false,
    pick: (candidates, isl, blockSize, random) => {
      const costs = workerCosts(candidates, isl, blockSize, cost);
      const index = pickCandidate(costs, candidates.map((c) => c.treeSize), cost.temperature, random);
      return { index, cost: costs[index]! };
    },
  };
}

/** The default cost model's parameter names (upstream's) and the settings each one sets. */
const COST_PARAMETERS: Readonly<Record<string, [key: keyof CostSettings, spec: SelectionParameter]>> = {
  overlap_score_credit: ['overlapScoreCredit', NON_NEGATIVE('credit per device-cached prefix block, in blocks of prefill avoided')],
  overlap_score_credit_decay: ['overlapScoreCreditDecay', NON_NEGATIVE('shrinks the credit on workers whose prefill queue exceeds the least-loaded one\'s')],
  prefill_load_scale: ['prefillLoadScale', NON_NEGATIVE('scale of the prompt-side load after the credits')],
  decode_active_request_weight: ['decodeActiveRequestWeight', NON_NEGATIVE('block-equivalent cost of each active request')],
  host_cache_hit_weight: ['hostCacheHitWeight', SHARE('credit per prefix block cached in host memory')],
  disk_cache_hit_weight: ['diskCacheHitWeight', SHARE('credit per prefix block cached on disk')],
  shared_cache_multiplier: ['sharedCacheMultiplier', SHARE('credit per shared-pool block past the device prefix (--shared-cache-type hicache)')],
  router_temperature: ['temperature', NON_NEGATIVE('softmax temperature over normalized costs; 0 picks the cheapest')],
};

/** `sgl-router`'s cache_aware thresholds, upstream's defaults for the two-tier policy. */
const TWO_TIER_DEFAULTS = { cache_threshold: 0.5, balance_abs_threshold: 32, balance_rel_threshold: 1.1 };

/** Index of the candidate with the fewest active requests among `rows`; the first on a tie (upstream's row order). */
function leastLoaded(candidates: readonly Candidate[], rows: readonly number[]): Pick {
  let best = rows[0]!;
  for (const row of rows) if (candidates[row]!.activeRequests < candidates[best]!.activeRequests) best = row;
  return { index: best, cost: null };
}

/**
 * Load first: when the active-request spread exceeds `balance_abs_threshold` and the largest count
 * exceeds `balance_rel_threshold` times the smallest, the least-loaded worker. Then overlap: when the
 * best device overlap covers more than `cache_threshold` of the prompt's blocks, the least-loaded
 * worker holding it. Otherwise the least-loaded worker.
 */
function twoTier(p: typeof TWO_TIER_DEFAULTS, base: CostSettings): WorkerSelection {
  return {
    cost: base,
    readsOverlap: true,
    pick: (candidates, isl, blockSize) => {
      const all = candidates.map((_, i) => i);
      const loads = candidates.map((c) => c.activeRequests);
      const min = Math.min(...loads);
      const max = Math.max(...loads);
      if (max - min > p.balance_abs_threshold && max > p.balance_rel_threshold * min) return leastLoaded(candidates, all);
      const requestBlocks = Math.ceil(isl / blockSize);
      const best = Math.max(...candidates.map((c) => c.overlapBlocks));
      const ratio = requestBlocks === 0 ? 0 : best / requestBlocks;
      if (ratio > p.cache_threshold) return leastLoaded(candidates, all.filter((i) => candidates[i]!.overlapBlocks === best));
      return leastLoaded(candidates, all);
    },
  };
}

const SELECTION_TYPES = {
  'dynamo-default-cost-fn': {
    help: "Dynamo's cost model (prefill blocks after cache credits plus decode blocks) with weights of its own; unset ones keep the frontend's",
    parameters: Object.fromEntries(Object.entries(COST_PARAMETERS).map(([name, [, spec]]) => [name, spec])),
    build(parameters, base) {
      const cost: CostSettings = { ...base };
      for (const [name, value] of Object.entries(parameters)) cost[COST_PARAMETERS[name]![0]] = value;
      return costModel(cost);
    },
  },
  'dynamo-two-tier-cost-fn': {
    help: 'Load first (the least-loaded worker once active requests are badly imbalanced), then device prefix overlap (the least-loaded worker holding the longest prefix, when it covers enough of the prompt)',
    parameters: {
      cache_threshold: SHARE(`share of the prompt's blocks the best worker must hold on the device before overlap decides (strictly more; default ${TWO_TIER_DEFAULTS.cache_threshold})`),
      balance_abs_threshold: { kind: 'integer', min: 0, help: `active-request spread beyond which load decides (default ${TWO_TIER_DEFAULTS.balance_abs_threshold})` },
      balance_rel_threshold: { kind: 'number', min: 1, help: `ratio of the largest to the smallest active-request count beyond which load decides (default ${TWO_TIER_DEFAULTS.balance_rel_threshold})` },
    },
    build: (parameters, base) => twoTier({ ...TWO_TIER_DEFAULTS, ...parameters }, base),
  },
} as const satisfies Readonly<Record<string, SelectionType>>;

export type WorkerSelectionType = keyof typeof SELECTION_TYPES;

/** The policy types, in the order messages list them. */
export const WORKER_SELECTION_TYPES = Object.keys(SELECTION_TYPES) as readonly WorkerSelectionType[];

/** The name that selects the built-in cost model with the frontend's weights; no instance may take it. */
export const BUILT_IN_SELECTION = 'default';

export function isWorkerSelectionType(name: string): name is WorkerSelectionType {
  return Object.hasOwn(SELECTION_TYPES, name);
}

/** What a policy type takes, for checking a policy file. */
export function selectionParameters(type: WorkerSelectionType): Readonly<Record<string, SelectionParameter>> {
  return SELECTION_TYPES[type].parameters;
}

/** The selection a router uses: the chosen instance's type with its parameters, or the built-in cost model. */
export function buildWorkerSelection(choice: WorkerSelectionChoice | null, base: CostSettings): WorkerSelection {
  if (choice === null) return costModel(base);
  const type: SelectionType = SELECTION_TYPES[choice.type];
  return type.build(choice.parameters, base);
}

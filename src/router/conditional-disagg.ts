// Conditional disaggregation (upstream's `--router-conditional-disagg`): before a request takes the
// prefill hop, decide whether its prefill should run on the decode worker instead. Three policies,
// by name: `isl_bounding` (the prompt left to compute on the decode worker the router would pick
// is short in tokens and as a share of the prompt), `prefill_load` (the prefill worker it would
// pick is over its busy line) and `isl_or_load` (either). A decode worker over the optional decode
// busy line never takes a local prefill.

export const CONDITIONAL_DISAGG_POLICIES = ['isl_bounding', 'prefill_load', 'isl_or_load'] as const;

export type ConditionalDisaggPolicy = (typeof CONDITIONAL_DISAGG_POLICIES)[number];

/** Upstream's defaults: at most 2048 uncached prompt tokens, under 70% of the prompt. */
export const DEFAULT_EFF_ISL_THRESHOLD = 2048;
export const DEFAULT_EFF_ISL_RATIO_THRESHOLD = 0.7;

/** The policies that read the prefill pool's load, and so need its busy line. */
export const LOAD_AWARE_POLICIES: ReadonlySet<ConditionalDisaggPolicy> = new Set(['prefill_load', 'isl_or_load']);

export interface ConditionalDisaggSettings {
  readonly policy: ConditionalDisaggPolicy;
  /** Uncached prompt tokens (on the decode worker) below which a local prefill is short enough. */
  readonly effIslThreshold: number;
  /** Uncached share of the prompt below which a local prefill is cached enough. */
  readonly effIslRatioThreshold: number;
  /** A prefill worker is busy past this multiple of its max_num_batched_tokens in active prefill tokens; null: never. */
  readonly prefillBusyThreshold: number | null;
  /** A decode worker whose projected KV blocks exceed this share of its capacity takes no local prefill; null: no guard. */
  readonly decodeBusyThreshold: number | null;
}

/** Where a request's prefill runs: a prefill worker, its decode worker, or nowhere apart (no prefill pool). */
export type PrefillDecision = 'remote' | 'local' | 'skipped';

/** Why: each decision's reasons, as /metrics labels them. */
export type PrefillReason =
  /** remote: conditional disaggregation is off. */
  | 'conditional_disagg_off'
  /** remote: the request names its prefill worker. */
  | 'prefill_pinned'
  /** remote: the uncached prompt is at or over the token threshold. */
  | 'uncached_prompt_too_long'
  /** remote: the uncached share of the prompt is at or over the ratio threshold. */
  | 'cached_share_too_small'
  /** remote: the prefill worker the router would pick is not busy (prefill_load). */
  | 'prefill_not_busy'
  /** remote: the decode worker that would prefill is over the decode busy line. */
  | 'decode_busy'
  /** remote: the decode router could not say where the request would go (it then routes as usual). */
  | 'no_decode_preview'
  /** local: short, or mostly cached on the decode worker. */
  | 'short_or_cached'
  /** local: the prefill worker the router would pick is busy. */
  | 'prefill_busy'
  /** skipped: decode workers serve aggregated while no prefill worker is up (--decode-fallback). */
  | 'no_prefill_workers';

/** What a decision reads of the two hops. */
export interface PrefillFacts {
  readonly promptTokens: number;
  /** Prompt tokens cached on the decode worker the router would pick. */
  readonly decodeCachedTokens: number;
  /** Whether the prefill worker the router would pick is over its busy line; null: not known. */
  readonly prefillBusy: boolean | null;
  /** Whether that decode worker is over the decode busy line; null: no guard, or not known. */
  readonly decodeBusy: boolean | null;
}

export interface PrefillVerdict {
  readonly decision: PrefillDecision;
  readonly reason: PrefillReason;
}

type Verdict = PrefillVerdict;
const remote = (reason: PrefillReason): Verdict => ({ decision: 'remote', reason });
const local = (reason: PrefillReason): Verdict => ({ decision: 'local', reason });

/** The ISL bound: short and mostly cached (both strictly under their thresholds). */
function islVerdict(s: ConditionalDisaggSettings, f: PrefillFacts): Verdict {
  const effIsl = f.promptTokens - Math.min(f.decodeCachedTokens, f.promptTokens);
  if (effIsl >= s.effIslThreshold) return remote('uncached_prompt_too_long');
  return effIsl / Math.max(f.promptTokens, 1) < s.effIslRatioThreshold ? local('short_or_cached') : remote('cached_share_too_small');
}

const loadVerdict = (f: PrefillFacts): Verdict => (f.prefillBusy === true ? local('prefill_busy') : remote('prefill_not_busy'));

const POLICY_VERDICTS: { readonly [P in ConditionalDisaggPolicy]: (s: ConditionalDisaggSettings, f: PrefillFacts) => Verdict } = {
  isl_bounding: islVerdict,
  prefill_load: (_s, f) => loadVerdict(f),
  // Either side may send it local; when neither does, the ISL side says why more precisely.
  isl_or_load: (s, f) => {
    const isl = islVerdict(s, f);
    return isl.decision === 'local' ? isl : loadVerdict(f).decision === 'local' ? loadVerdict(f) : isl;
  },
};

/** Where the request's prefill runs, and why. */
export function decidePrefill(settings: ConditionalDisaggSettings, facts: PrefillFacts): PrefillVerdict {
  const verdict = POLICY_VERDICTS[settings.policy](settings, facts);
  if (verdict.decision === 'local' && facts.decodeBusy === true) return remote('decode_busy');
  return verdict;
}

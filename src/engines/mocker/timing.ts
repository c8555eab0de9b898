// Step-time model of the mocker (reference/router.md §8.3, polynomial defaults), in milliseconds
// before dividing by the speedup ratio.

/** What a decode step's time depends on. */
export interface DecodeState {
  /** KV blocks in use over the KV capacity, in [0, 1]. */
  activeFraction: number;
  /** Tokens held in the KV cache by running sequences. */
  activeKvTokens: number;
  /** Mean context length of the sequences decoding in the step. */
  meanContextLength: number;
}

/** How long a scheduler step takes, before the speedup ratios are applied. */
export interface StepTiming {
  prefillMs(tokens: number): number;
  decodeMs(state: DecodeState): number;
}

/** The built-in polynomial model. */
export const POLYNOMIAL_TIMING: StepTiming = {
  prefillMs: (tokens) => prefillTimeMs(tokens),
  decodeMs: (state) => decodeTimeMs(state.activeFraction),
};

/** Time to prefill `tokens` new tokens in one batch; 0 when everything was cached. */
export function prefillTimeMs(tokens: number): number {
  if (tokens <= 0) return 0;
  return Math.max(0, 4.209989e-7 * tokens * tokens + 1.518344e-2 * tokens + 1.650142e1);
}

/** Time of one decode step at a KV usage fraction in [0, 1]; never below 1 ms. */
export function decodeTimeMs(activeFraction: number): number {
  const p = activeFraction;
  return Math.max(1, -25.74 * p * p + 54.01 * p + 5.74);
}

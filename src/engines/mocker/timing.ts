// Step-time model of the mocker (reference/router.md §8.3, polynomial defaults), in milliseconds
// before dividing by the speedup ratio.

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

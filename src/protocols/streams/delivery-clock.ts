// One clock reading per delivery pass. Everything the producers pushed in one go reaches its
// consumers in a single pass (the async queues' flush), so the per-token timestamps taken inside
// that pass (inter-token latency, the silence watchdog) are one instant: the moment the engine's
// step arrived. Reading the clock once per pass instead of twice per token matters at 100k+
// tokens/s. Outside a pass the clock is read as usual.

let fixed = -1;

/** The current time in ms (performance.now()), the pass's reading inside a delivery pass. */
export function deliveryNow(): number {
  return fixed >= 0 ? fixed : performance.now();
}

/** A delivery pass starts: reads the clock once for it. */
export function beginDelivery(): void {
  fixed = performance.now();
}

/** The pass is over: deliveryNow() reads the clock again. */
export function endDelivery(): void {
  fixed = -1;
}

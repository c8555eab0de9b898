// The ids of one encode call, written into an array the encoder keeps from call to call: the
// call's answer is one copy of the exact length. A new array pushed to for a 1k-token prompt grew
// (and was copied) about ten times: ~30 KB of garbage per prompt, which brought the next
// young-generation collection, a pause in some request's time to first token, that much nearer.

/** Runs longer than this give their array back once taken (a rare huge prompt keeps no memory). */
const MAX_KEPT_IDS = 1 << 16;

export class IdRun {
  private ids: number[] = [];
  private used = 0;

  get length(): number {
    return this.used;
  }

  /** Starts a new run (the array is kept: the next writes overwrite it). */
  reset(): void {
    this.used = 0;
  }

  push(id: number): void {
    // Past the array's end this appends: it grows only until the longest run seen.
    this.ids[this.used++] = id;
  }

  pushAll(ids: ArrayLike<number>): void {
    for (let i = 0; i < ids.length; i++) this.ids[this.used++] = ids[i]!;
  }

  at(i: number): number {
    return this.ids[i]!;
  }

  /** The ids from `start` on, as a new array. */
  slice(start: number): number[] {
    return this.ids.slice(start, this.used);
  }

  /** The whole run as a new array of its length; the run starts over. */
  take(): number[] {
    const out = this.ids.slice(0, this.used);
    this.used = 0;
    if (this.ids.length > MAX_KEPT_IDS) this.ids = [];
    return out;
  }
}

// The ids of one encode call, gathered in a buffer the encoder keeps and copied out once at their
// final count. An array grown by push from empty allocates about four times its final size on the
// way (each growth copies it): ~40 KB of young-generation garbage for a 1.3k-token prompt.

/** Ids held after a call at most (a longer text's buffer is let go afterwards). */
const KEPT_IDS = 1 << 16;

export class IdSink {
  private buffer = new Uint32Array(1024);
  /** Ids gathered so far in this call. */
  length = 0;

  push(id: number): void {
    if (this.length === this.buffer.length) this.grow();
    this.buffer[this.length++] = id;
  }

  /** The id at `index` (< length). */
  at(index: number): number {
    return this.buffer[index]!;
  }

  /** The ids from `start` on, as an array of their own. */
  slice(start: number): number[] {
    const out = new Array<number>(this.length - start);
    for (let i = start; i < this.length; i++) out[i - start] = this.buffer[i]!;
    return out;
  }

  /** Every id gathered, as an array of their own; the sink is empty afterwards. */
  take(): number[] {
    const out = this.slice(0);
    this.clear();
    return out;
  }

  /** Drops what was gathered (after a call that gave up). */
  clear(): void {
    this.length = 0;
    if (this.buffer.length > KEPT_IDS) this.buffer = new Uint32Array(KEPT_IDS);
  }

  private grow(): void {
    const bigger = new Uint32Array(this.buffer.length * 2);
    bigger.set(this.buffer);
    this.buffer = bigger;
  }
}

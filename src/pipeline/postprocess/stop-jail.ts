// Stop strings on streamed text. Text that could still turn into a hidden stop string is held
// back (jailed) until a later piece completes the match or rules it out; text already released
// can therefore never be part of a match. With include_stop_str_in_output nothing needs to be held
// back: the text is shown either way, and the stop fires at the end of the match.
//
// When several stop strings match, the one that ends first wins (the longer one on a tie). That is
// the answer a character-by-character stream would give, so the result does not depend on how the
// text was split into tokens.

const NO_STOPS: readonly string[] = [];

export class StopJail {
  private readonly stops: readonly string[];
  /** Characters of history kept for matching: a match can start at most this far back. */
  private readonly keep: number;
  /** Recent text: released history followed by the jailed suffix. */
  private tail = '';
  private jailed = 0;
  /** The stop string matched by the last `push`, or null. */
  matched: string | null = null;

  constructor(
    stops: readonly string[],
    private readonly includeInOutput: boolean,
  ) {
    // Most requests have no stop strings: nothing to copy or measure.
    this.stops = stops.length === 0 ? NO_STOPS : stops.filter((s) => s.length > 0);
    this.keep = this.stops.length === 0 ? 0 : Math.max(0, ...this.stops.map((s) => s.length - 1));
  }

  get active(): boolean {
    return this.stops.length > 0;
  }

  /** Adds newly decoded text; returns the text now safe to release. Sets `matched` on a stop. */
  push(text: string): string {
    if (text.length === 0) return '';
    const releaseStart = this.tail.length - this.jailed;
    const tail = this.tail + text;
    let best: string | null = null;
    let bestStart = 0;
    let bestEnd = Infinity;
    for (const s of this.stops) {
      const at = tail.indexOf(s);
      if (at < 0) continue;
      const end = at + s.length;
      if (end < bestEnd || (end === bestEnd && at < bestStart)) {
        best = s;
        bestStart = at;
        bestEnd = end;
      }
    }
    if (best !== null) {
      this.matched = best;
      this.tail = '';
      this.jailed = 0;
      const releaseEnd = this.includeInOutput ? bestEnd : bestStart;
      return releaseEnd > releaseStart ? tail.slice(releaseStart, releaseEnd) : '';
    }
    this.jailed = this.includeInOutput ? 0 : this.longestJailableSuffix(tail);
    const released = tail.slice(releaseStart, tail.length - this.jailed);
    this.tail = tail.length > this.keep ? tail.slice(tail.length - this.keep) : tail;
    return released;
  }

  /** Releases the jailed text: no further text is coming, so it can no longer match. */
  flush(): string {
    if (this.jailed === 0) return '';
    const out = this.tail.slice(this.tail.length - this.jailed);
    this.jailed = 0;
    return out;
  }

  /** Length of the longest suffix of `tail` that is a strict prefix of some stop string. */
  private longestJailableSuffix(tail: string): number {
    let best = 0;
    for (const s of this.stops) {
      for (let k = Math.min(s.length - 1, tail.length); k > best; k--) {
        if (endsWithPrefix(tail, s, k)) {
          best = k;
          break;
        }
      }
    }
    return best;
  }
}

/** Whether `text` ends with the first `k` characters of `s`, without building substrings. */
function endsWithPrefix(text: string, s: string, k: number): boolean {
  const offset = text.length - k;
  for (let i = 0; i < k; i++) if (text.charCodeAt(offset + i) !== s.charCodeAt(i)) return false;
  return true;
}

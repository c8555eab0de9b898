// A lossy streaming UTF-8 decoder written for one-token pushes: it keeps at most three pending
// bytes between calls and replaces invalid input the way a WHATWG `TextDecoder` does (one U+FFFD
// per maximal invalid subpart). Measured faster than `TextDecoder` with `{stream: true}` for the
// few-byte inputs a token has, and it needs no view object per call.

const REPLACEMENT = 0xfffd;

export class Utf8StreamDecoder {
  private needed = 0;
  private seen = 0;
  private codePoint = 0;
  private lower = 0x80;
  private upper = 0xbf;
  /** Code units of the text being produced by the current call; reused across calls. */
  private readonly units: number[] = [];
  /** Set by `decode` when it had to emit U+FFFD for invalid bytes. */
  sawInvalid = false;

  /** True when no bytes of an unfinished character are held back. */
  get idle(): boolean {
    return this.needed === 0;
  }

  /** Decodes `bytes[start, end)`, returning the characters completed by them. */
  decode(bytes: Uint8Array, start: number, end: number): string {
    const units = this.units;
    units.length = 0;
    this.sawInvalid = false;
    let i = start;
    while (i < end) {
      const b = bytes[i]!;
      if (this.needed === 0) {
        i++;
        if (b < 0x80) units.push(b);
        else if (b >= 0xc2 && b <= 0xdf) this.begin(1, b & 0x1f);
        else if (b >= 0xe0 && b <= 0xef) {
          if (b === 0xe0) this.lower = 0xa0;
          else if (b === 0xed) this.upper = 0x9f;
          this.begin(2, b & 0x0f);
        } else if (b >= 0xf0 && b <= 0xf4) {
          if (b === 0xf0) this.lower = 0x90;
          else if (b === 0xf4) this.upper = 0x8f;
          this.begin(3, b & 0x07);
        } else this.invalid();
        continue;
      }
      if (b < this.lower || b > this.upper) {
        // The byte ends the broken sequence without being part of it: decode it afresh.
        this.reset();
        this.invalid();
        continue;
      }
      i++;
      this.lower = 0x80;
      this.upper = 0xbf;
      this.codePoint = (this.codePoint << 6) | (b & 0x3f);
      if (++this.seen === this.needed) {
        const cp = this.codePoint;
        this.reset();
        if (cp > 0xffff) units.push(0xd7c0 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        else units.push(cp);
      }
    }
    return unitsToString(units);
  }

  /** Ends the stream: an unfinished character becomes U+FFFD. */
  flush(): string {
    if (this.needed === 0) return '';
    this.reset();
    this.sawInvalid = true;
    return '\ufffd';
  }

  private begin(needed: number, bits: number): void {
    this.needed = needed;
    this.codePoint = bits;
  }

  private invalid(): void {
    this.units.push(REPLACEMENT);
    this.sawInvalid = true;
  }

  private reset(): void {
    this.needed = 0;
    this.seen = 0;
    this.codePoint = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }
}

/** Chunked so very long tokens cannot exceed the engine's argument-count limit. */
function unitsToString(units: number[]): string {
  const n = units.length;
  if (n === 0) return '';
  if (n <= 4096) return String.fromCharCode.apply(null, units);
  let out = '';
  for (let i = 0; i < n; i += 4096) out += String.fromCharCode.apply(null, units.slice(i, i + 4096));
  return out;
}

// Accumulates socket chunks and hands out whole frames: the shared base of the streaming decoders.

export class ByteAccumulator {
  private buf: Buffer = Buffer.alloc(0);
  private offset = 0;

  push(chunk: Buffer): void {
    const rest = this.buf.length - this.offset;
    this.buf = rest === 0 ? chunk : Buffer.concat([this.buf.subarray(this.offset), chunk]);
    this.offset = 0;
  }

  get available(): number {
    return this.buf.length - this.offset;
  }

  /** Big-endian unsigned integer of `size` bytes at `at` past the read position (size 2, 4 or 8). */
  peekUint(at: number, size: 2 | 4 | 8): number {
    const p = this.offset + at;
    if (size === 2) return this.buf.readUInt16BE(p);
    if (size === 4) return this.buf.readUInt32BE(p);
    const big = this.buf.readBigUInt64BE(p);
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`frame length ${big} is too large`);
    return Number(big);
  }

  /** The next `n` bytes, advancing the read position (a view; pushed buffers are never modified). */
  take(n: number): Buffer {
    const out = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

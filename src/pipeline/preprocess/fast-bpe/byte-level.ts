// GPT-2's byte-level alphabet: every byte as one printable character, so a token's text in the
// vocab is the bytes of its UTF-8 spelled with these characters.

/** The character that stands for each byte value. */
export const BYTE_CHARS: readonly string[] = byteChars();

function byteChars(): string[] {
  const chars: string[] = new Array(256);
  const printable = (b: number): boolean => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let shifted = 0;
  for (let b = 0; b < 256; b++) chars[b] = String.fromCharCode(printable(b) ? b : 256 + shifted++);
  return chars;
}

/**
 * Writes the UTF-8 of `text` into `out` (large enough: 3 bytes per UTF-16 unit) and returns the
 * length. `text` is well formed (no lone surrogates).
 */
export function utf8Into(text: string, out: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdbff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 0x3f);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}

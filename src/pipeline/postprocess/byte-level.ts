// The GPT-2 byte-level alphabet: every byte is shown as a printable character so BPE vocabularies
// can be stored as strings. Bytes that are already printable Latin-1 stand for themselves; the
// other 68 take the code points from U+0100 upwards in byte order.

function printable(b: number): boolean {
  return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
}

/** Code point → byte, -1 for characters outside the alphabet. Indexed up to U+0143. */
export const BYTE_OF_CHAR: Int16Array = (() => {
  const table = new Int16Array(0x144).fill(-1);
  let next = 0x100;
  for (let b = 0; b < 256; b++) table[printable(b) ? b : next++] = b;
  return table;
})();

// BLAKE3 in keyed-hash mode, synchronous and dependency-free: the router derives its keyed
// tracking seeds on the request path, where the WASM hashers' async construction does not fit.
// Inputs are short scope framings, so clarity wins over speed here.

const IV = Uint32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
const PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const CHUNK_START = 1;
const CHUNK_END = 2;
const PARENT = 4;
const ROOT = 8;
const KEYED_HASH = 16;
const BLOCK_LEN = 64;
const CHUNK_LEN = 1024;

const rotr = (x: number, n: number): number => ((x >>> n) | (x << (32 - n))) >>> 0;

function mix(s: Uint32Array, a: number, b: number, c: number, d: number, x: number, y: number): void {
  s[a] = (s[a]! + s[b]! + x) >>> 0;
  s[d] = rotr(s[d]! ^ s[a]!, 16);
  s[c] = (s[c]! + s[d]!) >>> 0;
  s[b] = rotr(s[b]! ^ s[c]!, 12);
  s[a] = (s[a]! + s[b]! + y) >>> 0;
  s[d] = rotr(s[d]! ^ s[a]!, 8);
  s[c] = (s[c]! + s[d]!) >>> 0;
  s[b] = rotr(s[b]! ^ s[c]!, 7);
}

/** The compression function; returns the 8-word chaining value. */
function compress(cv: Uint32Array, block: Uint32Array, counter: number, blockLen: number, flags: number): Uint32Array {
  const s = new Uint32Array(16);
  s.set(cv, 0);
  s.set(IV.subarray(0, 4), 8);
  s[12] = counter >>> 0;
  s[13] = Math.floor(counter / 0x1_0000_0000) >>> 0;
  s[14] = blockLen;
  s[15] = flags;
  let m = Uint32Array.from(block);
  for (let round = 0; round < 7; round++) {
    mix(s, 0, 4, 8, 12, m[0]!, m[1]!);
    mix(s, 1, 5, 9, 13, m[2]!, m[3]!);
    mix(s, 2, 6, 10, 14, m[4]!, m[5]!);
    mix(s, 3, 7, 11, 15, m[6]!, m[7]!);
    mix(s, 0, 5, 10, 15, m[8]!, m[9]!);
    mix(s, 1, 6, 11, 12, m[10]!, m[11]!);
    mix(s, 2, 7, 8, 13, m[12]!, m[13]!);
    mix(s, 3, 4, 9, 14, m[14]!, m[15]!);
    const prev = m;
    m = Uint32Array.from(PERMUTATION, (i) => prev[i]!);
  }
  const out = new Uint32Array(8);
  for (let i = 0; i < 8; i++) out[i] = (s[i]! ^ s[i + 8]!) >>> 0;
  return out;
}

function wordsOf(bytes: Uint8Array): Uint32Array {
  const padded = new Uint8Array(BLOCK_LEN);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  return Uint32Array.from({ length: 16 }, (_, i) => view.getUint32(i * 4, true));
}

/** A node whose compression is still open: the root gets one more flag. */
interface Pending {
  cv: Uint32Array;
  block: Uint32Array;
  counter: number;
  blockLen: number;
  flags: number;
}

/** A chunk's last block, not yet compressed (it may be the root). */
function chunkOutput(key: Uint32Array, chunk: Uint8Array, index: number): Pending {
  let cv = key;
  const blocks = Math.max(1, Math.ceil(chunk.length / BLOCK_LEN));
  for (let b = 0; b < blocks - 1; b++) {
    cv = compress(cv, wordsOf(chunk.subarray(b * BLOCK_LEN, (b + 1) * BLOCK_LEN)), index, BLOCK_LEN, KEYED_HASH | (b === 0 ? CHUNK_START : 0));
  }
  const last = chunk.subarray((blocks - 1) * BLOCK_LEN);
  return { cv, block: wordsOf(last), counter: index, blockLen: last.length, flags: KEYED_HASH | CHUNK_END | (blocks === 1 ? CHUNK_START : 0) };
}

function parentOutput(key: Uint32Array, left: Uint32Array, right: Uint32Array): Pending {
  const block = new Uint32Array(16);
  block.set(left, 0);
  block.set(right, 8);
  return { cv: key, block, counter: 0, blockLen: BLOCK_LEN, flags: KEYED_HASH | PARENT };
}

const close = (p: Pending, extra = 0): Uint32Array => compress(p.cv, p.block, p.counter, p.blockLen, p.flags | extra);

/** The 32-byte keyed BLAKE3 digest of `input` under a 32-byte `key`. */
export function blake3Keyed(key: Uint8Array, input: Uint8Array): Uint8Array {
  if (key.length !== 32) throw new Error('a BLAKE3 key has 32 bytes');
  const keyView = new DataView(key.buffer, key.byteOffset, 32);
  const keyWords = Uint32Array.from({ length: 8 }, (_, i) => keyView.getUint32(i * 4, true));
  const chunks = Math.max(1, Math.ceil(input.length / CHUNK_LEN));
  // Completed subtrees, merged as the chunk count's low bits carry (the reference's CV stack).
  const stack: Uint32Array[] = [];
  for (let c = 0; c < chunks - 1; c++) {
    let cv = close(chunkOutput(keyWords, input.subarray(c * CHUNK_LEN, (c + 1) * CHUNK_LEN), c));
    let total = c + 1;
    while ((total & 1) === 0) {
      cv = close(parentOutput(keyWords, stack.pop()!, cv));
      total >>= 1;
    }
    stack.push(cv);
  }
  let node = chunkOutput(keyWords, input.subarray((chunks - 1) * CHUNK_LEN), chunks - 1);
  while (stack.length > 0) node = parentOutput(keyWords, stack.pop()!, close(node));
  const root = close(node, ROOT);
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  root.forEach((word, i) => view.setUint32(i * 4, word, true));
  return out;
}

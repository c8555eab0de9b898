// numpy's .npz: a zip archive of .npy arrays (np.savez stores them, np.savez_compressed deflates
// them; numpy writes zip64 records). Only what a planner profile needs: numeric arrays in C or
// Fortran order, read into float64.
import { inflateRawSync } from 'node:zlib';
import { ValidationError } from '../../../protocols/index.js';

export interface NdArray {
  shape: number[];
  /** Row-major (C order) values. */
  data: Float64Array;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32_MAX = 0xffffffff;

/** Every array of an .npz file, by name (without `.npy`). */
export function readNpz(buf: Buffer, where: string): Map<string, NdArray> {
  const fail = (why: string): never => {
    throw new ValidationError(`${where}: not a readable .npz file (${why})`);
  };
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) fail('no zip directory');
  const entries = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const arrays = new Map<string, NdArray>();
  for (let n = 0; n < entries; n++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== CENTRAL) fail('bad directory entry');
    const method = buf.readUInt16LE(at + 10);
    let compressed = buf.readUInt32LE(at + 20);
    let size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    let offset = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    // zip64: the fields saturated in the record follow, in this order, in the 0x0001 extra field.
    for (let x = at + 46 + nameLen; x + 4 <= at + 46 + nameLen + extraLen; ) {
      const id = buf.readUInt16LE(x);
      const len = buf.readUInt16LE(x + 2);
      if (id === 1) {
        let f = x + 4;
        const next = (): number => Number((f += 8, buf.readBigUInt64LE(f - 8)));
        if (size === U32_MAX) size = next();
        if (compressed === U32_MAX) compressed = next();
        if (offset === U32_MAX) offset = next();
      }
      x += 4 + len;
    }
    at += 46 + nameLen + extraLen + commentLen;
    if (!name.endsWith('.npy')) continue;
    if (buf.readUInt32LE(offset) !== LOCAL) fail(`bad local header of ${name}`);
    const start = offset + 30 + buf.readUInt16LE(offset + 26) + buf.readUInt16LE(offset + 28);
    const raw = buf.subarray(start, start + compressed);
    const body = method === 0 ? raw : method === 8 ? inflateRawSync(raw) : fail(`${name}: compression method ${method}`);
    if (body.length !== size) fail(`${name}: ${body.length} bytes, expected ${size}`);
    arrays.set(name.slice(0, -4), readNpy(body, `${where}: ${name}`));
  }
  return arrays;
}

const DTYPES: Record<string, { bytes: number; read: (b: Buffer, at: number, little: boolean) => number }> = {
  f8: { bytes: 8, read: (b, at, le) => (le ? b.readDoubleLE(at) : b.readDoubleBE(at)) },
  f4: { bytes: 4, read: (b, at, le) => (le ? b.readFloatLE(at) : b.readFloatBE(at)) },
  i8: { bytes: 8, read: (b, at, le) => Number(le ? b.readBigInt64LE(at) : b.readBigInt64BE(at)) },
  u8: { bytes: 8, read: (b, at, le) => Number(le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)) },
  i4: { bytes: 4, read: (b, at, le) => (le ? b.readInt32LE(at) : b.readInt32BE(at)) },
  u4: { bytes: 4, read: (b, at, le) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at)) },
};

/** One .npy array (format versions 1–3). */
export function readNpy(buf: Buffer, where: string): NdArray {
  const fail = (why: string): never => {
    throw new ValidationError(`${where}: not a readable .npy array (${why})`);
  };
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') fail('no magic');
  const major = buf[6]!;
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr':\s*'([<>|=])([a-z]\d+)'/.exec(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shapeText) fail('header');
  const dtype = DTYPES[descr![2]!] ?? fail(`dtype ${descr![1]}${descr![2]}`);
  const little = descr![1] !== '>';
  const shape = shapeText![1]!.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = headerStart + headerLen;
  if (buf.length < dataStart + count * dtype.bytes) fail('truncated data');
  const values = new Float64Array(count);
  for (let i = 0; i < count; i++) values[i] = dtype.read(buf, dataStart + i * dtype.bytes, little);
  const fortran = /'fortran_order':\s*True/.test(header);
  return { shape, data: fortran ? toRowMajor(values, shape) : values };
}

/** Column-major values of a 2-D array in row-major order (higher ranks are not used by profiles). */
function toRowMajor(values: Float64Array, shape: number[]): Float64Array {
  if (shape.length !== 2) return values;
  const [rows, cols] = shape as [number, number];
  const out = new Float64Array(values.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = values[c * rows + r]!;
  return out;
}

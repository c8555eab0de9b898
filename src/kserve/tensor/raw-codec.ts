// Raw tensor bytes (`raw_input_contents` / `raw_output_contents`) ⇄ element values. Little-endian,
// row-major; BYTES elements are a u32 little-endian length followed by the bytes.

import { ValidationError, type TensorDataType, type TensorValues } from '../../protocols/index.js';
import type { DataTypeInfo } from './data-types.js';
import { bf16ToFloat, floatToBf16, floatToHalf, halfToFloat } from './half-float.js';

/** Number of elements a shape holds (an empty shape is a scalar: 1). */
export function elementCount(shape: readonly number[]): number {
  let count = 1;
  for (const dim of shape) {
    if (dim < 0) throw new ValidationError(`Shape contains negative dimension: ${dim}`);
    count *= dim;
    if (!Number.isSafeInteger(count)) throw new ValidationError('Overflow occurred while calculating element count');
  }
  return count;
}

function countMismatch(name: string, expected: number, got: number): ValidationError {
  return new ValidationError(
    `Raw input element count for '${name}' does not match expected size, expected ${expected} elements, got ${got} elements`,
  );
}

/** Splits length-prefixed BYTES records. */
export function splitLengthPrefixed(raw: Uint8Array, name: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  let at = 0;
  while (at + 4 <= raw.byteLength) {
    const len = view.getUint32(at, true);
    at += 4;
    if (at + len > raw.byteLength) {
      throw new ValidationError(`Invalid length-prefixed BYTES input for '${name}', length exceeds raw input size`);
    }
    out.push(raw.subarray(at, at + len));
    at += len;
  }
  if (at !== raw.byteLength) {
    throw new ValidationError(`Invalid length-prefixed BYTES input for '${name}', extra bytes at the end`);
  }
  return out;
}

export function decodeRaw(info: DataTypeInfo, raw: Uint8Array, name: string, shape: readonly number[]): TensorValues {
  let expected: number;
  try {
    expected = elementCount(shape);
  } catch (err) {
    throw new ValidationError(`${(err as Error).message} (input '${name}')`);
  }
  if (info.size === 0) {
    const items = splitLengthPrefixed(raw, name);
    if (items.length !== expected) throw countMismatch(name, expected, items.length);
    return items;
  }
  if (raw.byteLength % info.size !== 0) throw new ValidationError(`Raw input length must be a multiple of ${info.size} (input '${name}')`);
  const n = raw.byteLength / info.size;
  if (n !== expected) throw countMismatch(name, expected, n);
  return readValues(info.dynamo, new DataView(raw.buffer, raw.byteOffset, raw.byteLength), n);
}

function readValues(dt: TensorDataType, view: DataView, n: number): TensorValues {
  switch (dt) {
    case 'Bool':
      return Array.from({ length: n }, (_, i) => view.getUint8(i) !== 0);
    case 'Int64':
      return Array.from({ length: n }, (_, i) => view.getBigInt64(i * 8, true));
    case 'Uint64':
      return Array.from({ length: n }, (_, i) => view.getBigUint64(i * 8, true));
    default: {
      const read = NUMBER_READERS[dt]!;
      return Array.from({ length: n }, (_, i) => read(view, i));
    }
  }
}

type Reader = (view: DataView, i: number) => number;
type Writer = (view: DataView, i: number, v: number) => void;

const NUMBER_READERS: Partial<Record<TensorDataType, Reader>> = {
  Uint8: (v, i) => v.getUint8(i),
  Uint16: (v, i) => v.getUint16(i * 2, true),
  Uint32: (v, i) => v.getUint32(i * 4, true),
  Int8: (v, i) => v.getInt8(i),
  Int16: (v, i) => v.getInt16(i * 2, true),
  Int32: (v, i) => v.getInt32(i * 4, true),
  Float16: (v, i) => halfToFloat(v.getUint16(i * 2, true)),
  BFloat16: (v, i) => bf16ToFloat(v.getUint16(i * 2, true)),
  Float32: (v, i) => v.getFloat32(i * 4, true),
  Float64: (v, i) => v.getFloat64(i * 8, true),
};

const NUMBER_WRITERS: Partial<Record<TensorDataType, Writer>> = {
  Uint8: (v, i, x) => v.setUint8(i, x),
  Uint16: (v, i, x) => v.setUint16(i * 2, x, true),
  Uint32: (v, i, x) => v.setUint32(i * 4, x, true),
  Int8: (v, i, x) => v.setInt8(i, x),
  Int16: (v, i, x) => v.setInt16(i * 2, x, true),
  Int32: (v, i, x) => v.setInt32(i * 4, x, true),
  Float16: (v, i, x) => v.setUint16(i * 2, floatToHalf(x), true),
  BFloat16: (v, i, x) => v.setUint16(i * 2, floatToBf16(x), true),
  Float32: (v, i, x) => v.setFloat32(i * 4, x, true),
  Float64: (v, i, x) => v.setFloat64(i * 8, x, true),
};

/** Length-prefixed concatenation of byte strings. */
export function joinLengthPrefixed(items: readonly Uint8Array[]): Buffer {
  let total = 0;
  for (const item of items) total += 4 + item.byteLength;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const item of items) {
    out.writeUInt32LE(item.byteLength, at);
    out.set(item, at + 4);
    at += 4 + item.byteLength;
  }
  return out;
}

export function encodeRaw(info: DataTypeInfo, values: TensorValues): Buffer {
  if (info.size === 0) return joinLengthPrefixed(values as Uint8Array[]);
  const out = Buffer.alloc(values.length * info.size);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  switch (info.dynamo) {
    case 'Bool':
      (values as boolean[]).forEach((b, i) => view.setUint8(i, b ? 1 : 0));
      break;
    case 'Int64':
      (values as bigint[]).forEach((b, i) => view.setBigInt64(i * 8, BigInt(b), true));
      break;
    case 'Uint64':
      (values as bigint[]).forEach((b, i) => view.setBigUint64(i * 8, BigInt(b), true));
      break;
    default: {
      const write = NUMBER_WRITERS[info.dynamo]!;
      (values as number[]).forEach((x, i) => write(view, i, x));
    }
  }
  return out;
}

import type { TensorDataType } from '../../protocols/index.js';

/** The typed `InferTensorContents` field that carries a data type, or null for raw-only types. */
export type ContentsField =
  | 'bool_contents'
  | 'int_contents'
  | 'int64_contents'
  | 'uint_contents'
  | 'uint64_contents'
  | 'fp32_contents'
  | 'fp64_contents'
  | 'bytes_contents';

export interface DataTypeInfo {
  /** KServe tensor datatype string ("INT32"). */
  readonly kserve: string;
  readonly dynamo: TensorDataType;
  /** Triton `DataType` enum name ("TYPE_INT32"). */
  readonly triton: string;
  /** Bytes per element in raw form; 0 for length-prefixed BYTES. */
  readonly size: number;
  readonly field: ContentsField | null;
}

const TABLE: readonly DataTypeInfo[] = [
  { kserve: 'BOOL', dynamo: 'Bool', triton: 'TYPE_BOOL', size: 1, field: 'bool_contents' },
  { kserve: 'UINT8', dynamo: 'Uint8', triton: 'TYPE_UINT8', size: 1, field: 'uint_contents' },
  { kserve: 'UINT16', dynamo: 'Uint16', triton: 'TYPE_UINT16', size: 2, field: 'uint_contents' },
  { kserve: 'UINT32', dynamo: 'Uint32', triton: 'TYPE_UINT32', size: 4, field: 'uint_contents' },
  { kserve: 'UINT64', dynamo: 'Uint64', triton: 'TYPE_UINT64', size: 8, field: 'uint64_contents' },
  { kserve: 'INT8', dynamo: 'Int8', triton: 'TYPE_INT8', size: 1, field: 'int_contents' },
  { kserve: 'INT16', dynamo: 'Int16', triton: 'TYPE_INT16', size: 2, field: 'int_contents' },
  { kserve: 'INT32', dynamo: 'Int32', triton: 'TYPE_INT32', size: 4, field: 'int_contents' },
  { kserve: 'INT64', dynamo: 'Int64', triton: 'TYPE_INT64', size: 8, field: 'int64_contents' },
  { kserve: 'FP16', dynamo: 'Float16', triton: 'TYPE_FP16', size: 2, field: null },
  { kserve: 'BF16', dynamo: 'BFloat16', triton: 'TYPE_BF16', size: 2, field: null },
  { kserve: 'FP32', dynamo: 'Float32', triton: 'TYPE_FP32', size: 4, field: 'fp32_contents' },
  { kserve: 'FP64', dynamo: 'Float64', triton: 'TYPE_FP64', size: 8, field: 'fp64_contents' },
  { kserve: 'BYTES', dynamo: 'Bytes', triton: 'TYPE_STRING', size: 0, field: 'bytes_contents' },
];

const BY_KSERVE = new Map(TABLE.map((t) => [t.kserve, t]));
const BY_DYNAMO = new Map(TABLE.map((t) => [t.dynamo, t]));
const BY_TRITON = new Map(TABLE.map((t) => [t.triton, t]));

/** By KServe string (case-sensitive, as upstream), or undefined. */
export function dataTypeByKserve(name: string): DataTypeInfo | undefined {
  return BY_KSERVE.get(name);
}

export function dataTypeByDynamo(dt: TensorDataType): DataTypeInfo {
  return BY_DYNAMO.get(dt)!;
}

/** By Triton enum name ("TYPE_STRING"), or undefined. */
export function dataTypeByTriton(name: string): DataTypeInfo | undefined {
  return BY_TRITON.get(name);
}

export function isTensorDataType(value: unknown): value is TensorDataType {
  return typeof value === 'string' && BY_DYNAMO.has(value as TensorDataType);
}

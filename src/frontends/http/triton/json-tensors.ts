// Triton's JSON tensors (KServe v2 REST) ⇄ the KServe messages the shared core runs. Every input
// reaches the core as raw bytes (JSON data encoded, binary data as sent), so HTTP and gRPC requests
// take the same decoding and checks; outputs come back as JSON data or as binary data.

import {
  dataTypeByKserve,
  decodeRaw,
  encodeRaw,
  parameterScalar,
  shapeOf,
  typedValues,
  type DataTypeInfo,
  type InferInputTensor,
  type InferOutputTensor,
  type InferParameter,
  type InferParameters,
  type ModelInferRequest,
  type ModelInferResponse,
} from '../../../kserve/index.js';
import { ValidationError, type TensorValues } from '../../../protocols/index.js';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON parameter value as a KServe InferParameter (integers as int64, other numbers as double). */
function inferParameter(key: string, value: unknown): InferParameter {
  if (typeof value === 'boolean') return { bool_param: value, parameter_choice: 'bool_param' };
  if (typeof value === 'string') return { string_param: value, parameter_choice: 'string_param' };
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { int64_param: value, parameter_choice: 'int64_param' };
  if (typeof value === 'number') return { double_param: value, parameter_choice: 'double_param' };
  throw new ValidationError(`parameter '${key}' must be a boolean, a number or a string`);
}

/**
 * A JSON `parameters` object as InferParameters, without the keys of the HTTP protocol itself
 * (binary data flags, which never reach a worker). `where` names the object in errors.
 */
export function inferParameters(value: unknown, where: string, protocolKeys: readonly string[] = []): InferParameters | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new ValidationError(`'${where}' must be a JSON object`);
  let out: InferParameters | undefined;
  for (const key in value) {
    if (protocolKeys.includes(key)) continue;
    // Keys are the client's: a `__proto__` key must stay a plain key.
    out ??= Object.create(null) as InferParameters;
    out[key] = inferParameter(key, value[key]);
  }
  return out;
}

/** An input tensor and its data as raw bytes. */
export interface RawInput {
  tensor: InferInputTensor;
  raw: Buffer;
}

/** A ModelInferRequest whose inputs are all raw (the form both JSON data and binary data take). */
export function rawInferRequest(model: string, id: string | undefined, inputs: readonly RawInput[], parameters: InferParameters | undefined): ModelInferRequest {
  const request: ModelInferRequest = {
    model_name: model,
    id: id ?? '',
    inputs: inputs.map((i) => i.tensor),
    raw_input_contents: inputs.map((i) => i.raw),
  };
  if (parameters) request.parameters = parameters;
  return request;
}

/** InferParameters as a JSON object (undefined when empty). */
export function jsonParameters(params: InferParameters | undefined): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const key in params ?? {}) {
    out ??= Object.create(null) as JsonObject;
    out[key] = parameterScalar(params![key]!);
  }
  return out;
}

/** The KServe datatype of `name`'s `datatype` field. */
export function datatypeOf(value: unknown, input: string): DataTypeInfo {
  if (typeof value !== 'string') throw new ValidationError(`input '${input}': 'datatype' must be a string such as "INT32" or "BYTES"`);
  const info = dataTypeByKserve(value);
  if (!info) throw new ValidationError(`input '${input}': unknown datatype "${value}"`);
  return info;
}

/** A `shape` field: an array of non-negative integers. */
export function shapeField(value: unknown, input: string): number[] {
  if (!Array.isArray(value) || !value.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    throw new ValidationError(`input '${input}': 'shape' must be an array of non-negative integers`);
  }
  return value as number[];
}

/** Row-major elements of nested (or flat) JSON data. */
function flatten(data: unknown, out: unknown[]): void {
  if (Array.isArray(data)) for (const item of data) flatten(item, out);
  else out.push(data);
}

const INT_RANGES: Partial<Record<string, [number, number]>> = {
  INT8: [-128, 127],
  INT16: [-32768, 32767],
  INT32: [-2147483648, 2147483647],
  UINT8: [0, 255],
  UINT16: [0, 65535],
  UINT32: [0, 4294967295],
};

const BIG_RANGES: Partial<Record<string, [bigint, bigint]>> = {
  INT64: [-(2n ** 63n), 2n ** 63n - 1n],
  UINT64: [0n, 2n ** 64n - 1n],
};

const encoder = new TextEncoder();

/** One element of a JSON tensor, checked against its datatype. */
function element(info: DataTypeInfo, value: unknown, input: string, index: number): boolean | number | bigint | Uint8Array {
  const bad = (what: string): ValidationError =>
    new ValidationError(`input '${input}': 'data' element ${index} must be ${what} for datatype ${info.kserve}, got ${JSON.stringify(value) ?? String(value)}`);
  if (info.kserve === 'BOOL') {
    if (typeof value !== 'boolean') throw bad('true or false');
    return value;
  }
  if (info.kserve === 'BYTES') {
    if (typeof value !== 'string') throw bad('a string');
    return encoder.encode(value);
  }
  const big = BIG_RANGES[info.kserve];
  if (big) {
    const ok = (typeof value === 'number' && Number.isSafeInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value));
    const n = ok ? BigInt(value as number | string) : undefined;
    if (n === undefined || n < big[0] || n > big[1]) throw bad(`an integer in [${big[0]}, ${big[1]}]`);
    return n;
  }
  if (typeof value !== 'number') throw bad('a number');
  const range = INT_RANGES[info.kserve];
  if (range && (!Number.isInteger(value) || value < range[0] || value > range[1])) throw bad(`an integer in [${range[0]}, ${range[1]}]`);
  return value;
}

function elementCount(shape: readonly number[]): number {
  return shape.reduce((n, d) => n * d, 1);
}

/** JSON `data` of an input (flat or nested) as the raw bytes of its datatype. */
export function encodeJsonData(info: DataTypeInfo, shape: readonly number[], data: unknown, input: string): Buffer {
  const items: unknown[] = [];
  flatten(data, items);
  const expected = elementCount(shape);
  if (items.length !== expected) {
    throw new ValidationError(`input '${input}': shape [${shape.join(',')}] holds ${expected} elements but 'data' has ${items.length}`);
  }
  return encodeRaw(info, items.map((v, i) => element(info, v, input, i)) as TensorValues);
}

/** An output's element values, from its raw bytes or its typed contents. */
function outputValues(out: InferOutputTensor, raw: Uint8Array | undefined): { info: DataTypeInfo; values: TensorValues } {
  const info = dataTypeByKserve(out.datatype);
  if (!info) throw new ValidationError(`output '${out.name}' has an unknown datatype "${out.datatype}"`);
  const values = raw ? decodeRaw(info, raw, out.name, shapeOf(out.shape)) : typedValues(info, out.contents ?? {});
  return { info, values };
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Element values as JSON data: BYTES as strings, 64-bit integers exact (see `stringifyExact`). */
function jsonData(info: DataTypeInfo, values: TensorValues): unknown[] {
  if (info.kserve === 'BYTES') return (values as Uint8Array[]).map((b) => utf8.decode(b));
  return Array.from(values as ArrayLike<unknown>);
}

export interface JsonOutput {
  name: string;
  datatype: string;
  shape: number[];
  parameters?: JsonObject;
  data?: unknown[];
}

export interface HttpInferResponse {
  /** The JSON part. */
  json: JsonObject;
  /** Binary outputs' bytes, in output order, to follow the JSON part. */
  binary: Uint8Array[];
}

/** A response's outputs as Triton's JSON, those for which `binary(name)` holds as binary data. */
export function jsonOutputs(resp: ModelInferResponse, binary: (name: string) => boolean): { outputs: JsonOutput[]; binary: Uint8Array[] } {
  const chunks: Uint8Array[] = [];
  const outputs = resp.outputs.map((out, i): JsonOutput => {
    const raw = resp.raw_output_contents[i];
    const { info, values } = outputValues(out, raw);
    const json: JsonOutput = { name: out.name, datatype: out.datatype, shape: shapeOf(out.shape) };
    const parameters = jsonParameters(out.parameters);
    if (binary(out.name)) {
      const bytes = raw ?? encodeRaw(info, values);
      chunks.push(bytes);
      json.parameters = { ...parameters, binary_data_size: bytes.byteLength };
    } else {
      if (parameters) json.parameters = parameters;
      json.data = jsonData(info, values);
    }
    return json;
  });
  return { outputs, binary: chunks };
}

/** The infer response object: model, version, the request's id when it had one, parameters, outputs. */
export function inferResponse(resp: ModelInferResponse, binary: (name: string) => boolean): HttpInferResponse {
  const { outputs, binary: chunks } = jsonOutputs(resp, binary);
  const json: JsonObject = { model_name: resp.model_name, model_version: resp.model_version };
  if (resp.id) json.id = resp.id;
  const parameters = jsonParameters(resp.parameters);
  if (parameters) json.parameters = parameters;
  json.outputs = outputs;
  return { json, binary: chunks };
}


// Checks on tensor requests and worker responses. `checkResponseFields` stands in for upstream's
// strict JSON decoding of a worker reply; `validateTensors` is upstream's semantic validation.

import { ValidationError, type NvCreateTensorResponse, type Tensor } from '../../protocols/index.js';
import { isTensorDataType } from './data-types.js';

export function validateTensors(tensors: readonly Tensor[]): void {
  for (const t of tensors) {
    const { name, data_type, shape } = t.metadata;
    if (data_type !== t.data.data_type) {
      throw new ValidationError(`Tensor '${name}' declares data type ${data_type} but its data is ${t.data.data_type}`);
    }
    let expected = 1;
    for (const dim of shape) {
      if (dim < 0) {
        throw new ValidationError(`Tensor '${name}' has dimension ${dim}: only -1 is allowed as a wildcard dimension, and not in tensor data`);
      }
      expected *= dim;
    }
    if (expected !== t.data.values.length) {
      throw new ValidationError(`Tensor '${name}': shape implies ${expected} elements but data has ${t.data.values.length}`);
    }
  }
}

function missing(field: string): Error {
  return new Error(`missing field \`${field}\``);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Throws (plain Error, like a decode failure) when a worker reply lacks a required field. */
export function checkResponseFields(value: unknown): asserts value is NvCreateTensorResponse {
  if (!isRecord(value)) throw new Error('invalid type: expected struct NvCreateTensorResponse');
  if (typeof value.model !== 'string') throw missing('model');
  if (!Array.isArray(value.tensors)) throw missing('tensors');
  for (const t of value.tensors as unknown[]) {
    if (!isRecord(t)) throw new Error('invalid type: expected struct Tensor');
    if (!isRecord(t.metadata)) throw missing('metadata');
    if (!isRecord(t.data)) throw missing('data');
    const meta = t.metadata;
    if (typeof meta.name !== 'string') throw missing('name');
    if (meta.data_type === undefined) throw missing('data_type');
    if (!isTensorDataType(meta.data_type)) throw new Error(`unknown variant \`${String(meta.data_type)}\``);
    if (!Array.isArray(meta.shape)) throw missing('shape');
    if (t.data.data_type === undefined) throw missing('data_type');
    if (!isTensorDataType(t.data.data_type)) throw new Error(`unknown variant \`${String(t.data.data_type)}\``);
    if (!Array.isArray(t.data.values)) throw missing('values');
  }
}

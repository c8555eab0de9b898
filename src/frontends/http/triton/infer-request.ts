// The body of `POST /v2/models/{m}/infer`: Triton's JSON inference request, optionally followed by
// binary tensor data (the binary-data extension: `Inference-Header-Content-Length` gives the JSON
// part's size; an input with the `binary_data_size` parameter takes that many bytes of the rest, in
// input order). Listed `outputs` are the ones returned (the worker is told the list too); they come
// back as binary data when asked per output (`binary_data`) or for all (`binary_data_output`).

import type { InferInputTensor, InferRequestedOutputTensor, ModelInferRequest, ModelInferResponse } from '../../../kserve/index.js';
import { ValidationError } from '../../../protocols/index.js';
import { parseJsonBody } from '../body/index.js';
import { datatypeOf, encodeJsonData, inferParameters, isObject, rawInferRequest, shapeField, type JsonObject, type RawInput } from './json-tensors.js';

export const HEADER_LENGTH = 'inference-header-content-length';

export interface HttpInferRequest {
  request: ModelInferRequest;
  /** Whether an output goes back as binary data. */
  binaryOutput(name: string): boolean;
  /** The response with only the outputs the request listed (all of them when it listed none). */
  selected(resp: ModelInferResponse): ModelInferResponse;
}

/** Splits a body into its JSON part and the binary data after it. */
export function splitBody(body: Buffer | undefined, headerLength: string | string[] | undefined): { json: unknown; binary: Buffer } {
  if (!body || body.byteLength === 0) throw new ValidationError('the request body is empty: send a JSON inference request');
  const declared = Array.isArray(headerLength) ? headerLength[0] : headerLength;
  if (declared === undefined) return { json: parseJsonBody(body), binary: body.subarray(body.byteLength) };
  const length = /^\d+$/.test(declared.trim()) ? Number(declared) : Number.NaN;
  if (!Number.isSafeInteger(length) || length > body.byteLength || length === 0) {
    throw new ValidationError(
      `Inference-Header-Content-Length must be the JSON part's size in bytes, between 1 and the body's ${body.byteLength}; got '${declared}'`,
    );
  }
  return { json: parseJsonBody(body.subarray(0, length)), binary: body.subarray(length) };
}

/** Takes binary inputs from the data after the JSON part, in order. */
class BinaryCursor {
  private at = 0;

  constructor(private readonly data: Buffer) {}

  take(size: unknown, input: string): Buffer {
    if (!Number.isSafeInteger(size) || (size as number) < 0) {
      throw new ValidationError(`input '${input}': the 'binary_data_size' parameter must be a non-negative integer`);
    }
    const left = this.data.byteLength - this.at;
    if ((size as number) > left) {
      throw new ValidationError(`input '${input}': 'binary_data_size' is ${size as number} but only ${left} bytes of binary data are left in the request body`);
    }
    const bytes = this.data.subarray(this.at, this.at + (size as number));
    this.at += size as number;
    return bytes;
  }

  finish(): void {
    const left = this.data.byteLength - this.at;
    if (left > 0) throw new ValidationError(`the request body has ${left} bytes of binary data that no input's 'binary_data_size' accounts for`);
  }
}

function inputTensor(value: unknown, index: number, binary: BinaryCursor): RawInput {
  if (!isObject(value)) throw new ValidationError(`'inputs[${index}]' must be a JSON object`);
  if (typeof value.name !== 'string' || value.name === '') throw new ValidationError(`'inputs[${index}].name' must be a non-empty string`);
  const name = value.name;
  const info = datatypeOf(value.datatype, name);
  const shape = shapeField(value.shape, name);
  const params = value.parameters;
  if (params !== undefined && !isObject(params)) throw new ValidationError(`input '${name}': 'parameters' must be a JSON object`);
  const binarySize = params?.binary_data_size;
  let raw: Buffer;
  if (binarySize !== undefined) {
    if (value.data !== undefined) throw new ValidationError(`input '${name}' has both 'data' and the 'binary_data_size' parameter; send one`);
    raw = binary.take(binarySize, name);
  } else {
    if (value.data === undefined) throw new ValidationError(`input '${name}' needs 'data', or the 'binary_data_size' parameter with binary data after the JSON`);
    raw = encodeJsonData(info, shape, value.data, name);
  }
  const tensor: InferInputTensor = { name, datatype: info.kserve, shape };
  const parameters = inferParameters(params, `inputs[${index}].parameters`, ['binary_data_size']);
  if (parameters) tensor.parameters = parameters;
  return { tensor, raw };
}

function requestedOutputs(value: unknown, binaryDefault: boolean): { outputs: InferRequestedOutputTensor[]; binary: Map<string, boolean> } {
  const binary = new Map<string, boolean>();
  if (value === undefined) return { outputs: [], binary };
  if (!Array.isArray(value)) throw new ValidationError("'outputs' must be an array of {\"name\": ...} objects");
  const outputs = value.map((o: unknown, i): InferRequestedOutputTensor => {
    if (!isObject(o) || typeof o.name !== 'string' || o.name === '') throw new ValidationError(`'outputs[${i}].name' must be a non-empty string`);
    const params = o.parameters as JsonObject | undefined;
    const flag = params?.binary_data;
    if (flag !== undefined && typeof flag !== 'boolean') throw new ValidationError(`output '${o.name}': the 'binary_data' parameter must be true or false`);
    binary.set(o.name, flag ?? binaryDefault);
    const out: InferRequestedOutputTensor = { name: o.name };
    const parameters = inferParameters(params, `outputs[${i}].parameters`, ['binary_data']);
    if (parameters) out.parameters = parameters;
    return out;
  });
  return { outputs, binary };
}

/** The JSON request (and its binary data) as a ModelInferRequest whose inputs are all raw. */
export function toInferRequest(model: string, json: unknown, binaryData: Buffer): HttpInferRequest {
  if (!isObject(json)) throw new ValidationError('the inference request must be a JSON object with an \'inputs\' array');
  if (json.id !== undefined && typeof json.id !== 'string') throw new ValidationError("'id' must be a string");
  if (!Array.isArray(json.inputs)) throw new ValidationError("'inputs' must be an array of input tensors");
  const requestParams = json.parameters;
  const binaryAll = isObject(requestParams) ? requestParams.binary_data_output : undefined;
  if (binaryAll !== undefined && typeof binaryAll !== 'boolean') throw new ValidationError("the 'binary_data_output' parameter must be true or false");
  const parameters = inferParameters(requestParams, 'parameters', ['binary_data_output']);
  const cursor = new BinaryCursor(binaryData);
  const inputs = json.inputs.map((v: unknown, i) => inputTensor(v, i, cursor));
  cursor.finish();
  const { outputs, binary } = requestedOutputs(json.outputs, binaryAll ?? false);
  const request = rawInferRequest(model, json.id, inputs, parameters);
  if (outputs.length > 0) request.outputs = outputs;
  return {
    request,
    binaryOutput: (name) => binary.get(name) ?? binaryAll ?? false,
    selected(resp) {
      if (binary.size === 0) return resp;
      const keep = resp.outputs.map((o) => binary.has(o.name));
      return { ...resp, outputs: resp.outputs.filter((_, i) => keep[i]), raw_output_contents: resp.raw_output_contents.filter((_, i) => keep[i]) };
    },
  };
}

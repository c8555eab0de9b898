// KServe ModelInferRequest ⇄ tensor worker request/response (reference/kserve.md §6.2, §6.3).

import { ValidationError, type NvCreateTensorRequest, type NvCreateTensorResponse, type RequestedOutput, type Tensor, type TensorValues } from '../../protocols/index.js';
import {
  shapeOf,
  type InferInputTensor,
  type InferOutputTensor,
  type InferTensorContents,
  type ModelInferRequest,
  type ModelInferResponse,
} from '../wire-types.js';
import { dataTypeByDynamo, dataTypeByKserve, type DataTypeInfo } from './data-types.js';
import { fromInferParameters, toInferParameters } from './parameters.js';
import { decodeRaw, encodeRaw } from './raw-codec.js';
import { validateTensors } from './validate.js';

/**
 * The raw list must be empty or cover every input, and an input's data comes typed or raw, never
 * both (upstream silently prefers the typed contents; Triton refuses). Shared by both model kinds.
 */
export function checkRawInputs(req: ModelInferRequest): void {
  const raw = req.raw_input_contents;
  if (!raw || raw.length === 0) return;
  if (raw.length !== req.inputs.length) throw new ValidationError('`raw_input_contents` must be used for all inputs');
  const typed = req.inputs.find((input) => input.contents);
  if (typed) throw new ValidationError(`contents field must not be specified when using raw_input_contents for '${typed.name}'`);
}

export function toTensorRequest(req: ModelInferRequest): NvCreateTensorRequest {
  checkRawInputs(req);
  const tensors = req.inputs.map((input, i) => inputTensor(input, req.raw_input_contents?.[i]));
  validateTensors(tensors);
  const out: NvCreateTensorRequest = { id: req.id ? req.id : null, model: req.model_name, tensors };
  const parameters = fromInferParameters(req.parameters);
  if (parameters) out.parameters = parameters;
  if (req.outputs && req.outputs.length > 0) {
    out.outputs = req.outputs.map((o) => {
      const requested: RequestedOutput = { name: o.name };
      const params = fromInferParameters(o.parameters);
      if (params) requested.parameters = params;
      return requested;
    });
  }
  return out;
}

function inputTensor(input: InferInputTensor, raw: Uint8Array | undefined): Tensor {
  const info = dataTypeByKserve(input.datatype);
  if (!info) throw new ValidationError(`Input '${input.name}': Invalid data type "${input.datatype}"`);
  const shape = shapeOf(input.shape);
  let values: TensorValues;
  if (input.contents) {
    if (!info.field) {
      throw new ValidationError(
        `FP16/BF16 tensors must be sent via \`raw_input_contents\`; \`InferTensorContents\` has no typed field for half-precision (input '${input.name}')`,
      );
    }
    values = typedValues(info, input.contents);
  } else {
    if (!raw) throw new ValidationError(`Missing raw input for '${input.name}'`);
    values = decodeRaw(info, raw, input.name, shape);
  }
  const metadata: Tensor['metadata'] = { name: input.name, data_type: info.dynamo, shape };
  const parameters = fromInferParameters(input.parameters);
  if (parameters) metadata.parameters = parameters;
  return { metadata, data: { data_type: info.dynamo, values } };
}

/** The element values of typed `contents` for a datatype. */
export function typedValues(info: DataTypeInfo, c: InferTensorContents): TensorValues {
  switch (info.dynamo) {
    case 'Bool':
      return c.bool_contents ?? [];
    case 'Uint8':
      return (c.uint_contents ?? []).map((v) => v & 0xff);
    case 'Uint16':
      return (c.uint_contents ?? []).map((v) => v & 0xffff);
    case 'Uint32':
      return c.uint_contents ?? [];
    case 'Int8':
      return (c.int_contents ?? []).map((v) => (v << 24) >> 24);
    case 'Int16':
      return (c.int_contents ?? []).map((v) => (v << 16) >> 16);
    case 'Int32':
      return c.int_contents ?? [];
    case 'Int64':
      return (c.int64_contents ?? []).map((v) => BigInt(v));
    case 'Uint64':
      return (c.uint64_contents ?? []).map((v) => BigInt(v));
    case 'Float32':
      return c.fp32_contents ?? [];
    case 'Float64':
      return c.fp64_contents ?? [];
    default:
      return c.bytes_contents ?? [];
  }
}

function typedContents(info: DataTypeInfo, values: TensorValues, name: string): InferTensorContents {
  if (!info.field) {
    throw new ValidationError(
      `FP16/BF16 tensors cannot be returned via \`InferTensorContents\`; use \`raw_output_contents\` (set_raw_output_contents = true) for output '${name}'`,
    );
  }
  if (info.dynamo === 'Int64' || info.dynamo === 'Uint64') {
    return { [info.field]: (values as bigint[]).map((v) => v.toString()) };
  }
  return { [info.field]: values };
}

/** Worker response → KServe response; outputs are raw exactly when the request's inputs were. */
export function fromTensorResponse(resp: NvCreateTensorResponse, requestId: string, raw: boolean): ModelInferResponse {
  try {
    validateTensors(resp.tensors);
  } catch (err) {
    throw new ValidationError(`Invalid NvCreateTensorResponse: ${(err as Error).message}`);
  }
  const outputs: InferOutputTensor[] = [];
  const rawOut: Uint8Array[] = [];
  for (const t of resp.tensors) {
    const info = dataTypeByDynamo(t.metadata.data_type);
    const out: InferOutputTensor = {
      name: t.metadata.name,
      datatype: info.kserve,
      shape: t.metadata.shape,
      parameters: toInferParameters(t.metadata.parameters),
    };
    if (raw) rawOut.push(encodeRaw(info, t.data.values));
    else out.contents = typedContents(info, t.data.values, t.metadata.name);
    outputs.push(out);
  }
  return {
    model_name: resp.model,
    model_version: '1',
    id: requestId,
    parameters: toInferParameters(resp.parameters),
    outputs,
    raw_output_contents: rawOut,
  };
}

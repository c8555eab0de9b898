// Triton's generate extension (`POST /v2/models/{m}/generate` and `/generate_stream`): a flat JSON
// object whose keys that name one of the model's inputs become input tensors (a scalar is shape
// [1], an array its nested shape) and whose other keys, with those under `parameters`, become
// request parameters (the vLLM backend's sampling parameters). The answer is a flat object of the
// outputs: a one-element output as its value, a longer one as an array.

import { dataTypeByKserve, type DeclaredInputs, type ModelInferRequest, type ModelInferResponse } from '../../../kserve/index.js';
import { ValidationError } from '../../../protocols/index.js';
import { encodeJsonData, inferParameters, isObject, jsonOutputs, rawInferRequest, type JsonObject, type RawInput } from './json-tensors.js';

/** The datatype of an input a model does not declare, from its JSON value. */
function inferredDatatype(value: unknown): string {
  const first = Array.isArray(value) ? value.flat(Infinity)[0] : value;
  if (typeof first === 'boolean') return 'BOOL';
  if (typeof first === 'number') return Number.isInteger(first) ? 'INT64' : 'FP64';
  return 'BYTES';
}

/** The nested shape of a JSON value: [1] for a scalar. */
function shapeOfValue(value: unknown): number[] {
  if (!Array.isArray(value)) return [1];
  const shape: number[] = [];
  for (let v: unknown = value; Array.isArray(v); v = v[0]) shape.push(v.length);
  return shape;
}

/** A BYTES input given as a JSON object or array of objects (e.g. `sampling_parameters`) is sent as its JSON text. */
function bytesValue(value: unknown): unknown {
  return isObject(value) ? JSON.stringify(value) : value;
}

function inputTensor(name: string, value: unknown, declared: DeclaredInputs | undefined): RawInput {
  const spec = declared?.inputs.find((i) => i.name === name);
  const datatype = spec?.datatype ?? inferredDatatype(value);
  const info = dataTypeByKserve(datatype)!;
  const data = info.kserve === 'BYTES' ? bytesValue(value) : value;
  let shape = shapeOfValue(data);
  if (spec && declared!.maxBatchSize > 0) shape = [1, ...shape];
  return { tensor: { name, datatype, shape }, raw: encodeJsonData(info, shape, data, name) };
}

/**
 * The generate body as a ModelInferRequest for `model`, whose declared inputs say which keys are
 * inputs (every key but `id` and `parameters`, for a model that declares none). `stream` is the
 * `stream` input's value when the body does not give one (generate_stream streams by default).
 */
export function toGenerateRequest(model: string, body: unknown, declared: DeclaredInputs | undefined, stream: boolean | undefined): ModelInferRequest {
  if (!isObject(body)) throw new ValidationError("the generate request must be a JSON object, e.g. {\"text_input\": \"...\", \"parameters\": {...}}");
  if (body.id !== undefined && typeof body.id !== 'string') throw new ValidationError("'id' must be a string");
  if (body.parameters !== undefined && !isObject(body.parameters)) throw new ValidationError("'parameters' must be a JSON object");
  const names = declared ? new Set(declared.inputs.map((i) => i.name)) : undefined;
  const fields: JsonObject = Object.assign(Object.create(null) as JsonObject, body);
  if (stream !== undefined && names?.has('stream') && fields.stream === undefined) fields.stream = stream;
  const inputs: RawInput[] = [];
  const extra = Object.create(null) as JsonObject;
  for (const key in fields) {
    if (key === 'id' || key === 'parameters') continue;
    if (!names || names.has(key)) inputs.push(inputTensor(key, fields[key], declared));
    else extra[key] = fields[key];
  }
  const parameters = inferParameters({ ...extra, ...(body.parameters as JsonObject | undefined) }, 'parameters');
  return rawInferRequest(model, body.id, inputs, parameters);
}

/** A response as the generate extension's flat object. */
export function generateResponse(resp: ModelInferResponse): JsonObject {
  const json: JsonObject = { model_name: resp.model_name, model_version: resp.model_version };
  if (resp.id) json.id = resp.id;
  for (const out of jsonOutputs(resp, () => false).outputs) {
    const data = out.data ?? [];
    json[out.name] = data.length === 1 ? data[0] : data;
  }
  return json;
}

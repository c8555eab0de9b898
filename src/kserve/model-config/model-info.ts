// ModelMetadata / ModelConfig answers for each kind of model (reference/kserve.md §3).

import { ValidationError, type TensorModel, type TensorModelConfig } from '../../protocols/index.js';
import { protoRoot, TO_OBJECT } from '../proto-files.js';
import { dataTypeByDynamo } from '../tensor/data-types.js';
import type { ModelConfigMessage, ModelMetadataResponse } from '../wire-types.js';

export function completionsMetadata(name: string): ModelMetadataResponse {
  return {
    name,
    versions: ['1'],
    platform: 'dynamo',
    inputs: [
      { name: 'text_input', datatype: 'BYTES', shape: [1] },
      { name: 'streaming', datatype: 'BOOL', shape: [1] },
    ],
    outputs: [
      { name: 'text_output', datatype: 'BYTES', shape: [-1] },
      { name: 'finish_reason', datatype: 'BYTES', shape: [-1] },
    ],
  };
}

export function completionsConfig(name: string): ModelConfigMessage {
  return {
    name,
    platform: 'dynamo',
    backend: 'dynamo',
    input: [
      { name: 'text_input', data_type: 'TYPE_STRING', dims: [1] },
      { name: 'streaming', data_type: 'TYPE_BOOL', dims: [1], optional: true },
    ],
    output: [
      { name: 'text_output', data_type: 'TYPE_STRING', dims: [-1] },
      { name: 'finish_reason', data_type: 'TYPE_STRING', dims: [-1] },
    ],
  };
}

/** Decodes a worker's serialized Triton ModelConfig. */
export function decodeTritonConfig(modelName: string, bytes: Uint8Array): ModelConfigMessage {
  const type = protoRoot().lookupType('inference.ModelConfig');
  try {
    return type.toObject(type.decode(bytes), TO_OBJECT) as ModelConfigMessage;
  } catch (err) {
    throw new ValidationError(
      `Model '${modelName}' has type Tensor but failed to decode Protobuf message: ${(err as Error).message}`,
    );
  }
}

/**
 * Metadata from a Triton config. As upstream, datatypes are the DataType enum names
 * ("TYPE_INT32") and dims are reported verbatim.
 */
export function metadataFromTritonConfig(config: ModelConfigMessage): ModelMetadataResponse {
  const tensor = (t: { name: string; data_type: string; dims: (string | number)[] }) => ({
    name: t.name,
    datatype: t.data_type || 'TYPE_INVALID',
    shape: t.dims,
  });
  return {
    name: config.name,
    versions: ['1'],
    platform: config.platform ?? '',
    inputs: (config.input ?? []).map(tensor),
    outputs: (config.output ?? []).map(tensor),
  };
}

export function tensorMetadata(config: TensorModelConfig): ModelMetadataResponse {
  const tensor = (t: TensorModelConfig['inputs'][number]) => ({
    name: t.name,
    datatype: dataTypeByDynamo(t.data_type).kserve,
    shape: t.shape,
  });
  return {
    name: config.name,
    versions: ['1'],
    platform: 'dynamo',
    inputs: config.inputs.map(tensor),
    outputs: config.outputs.map(tensor),
  };
}

export function tensorConfig(config: TensorModelConfig): ModelConfigMessage {
  return {
    name: config.name,
    platform: 'dynamo',
    backend: 'dynamo',
    input: config.inputs.map((t) => ({ name: t.name, data_type: dataTypeByDynamo(t.data_type).triton, dims: t.shape })),
    output: config.outputs.map((t) => ({ name: t.name, data_type: dataTypeByDynamo(t.data_type).triton, dims: t.shape })),
  };
}

/**
 * The config a tensor model declares, in Triton form: its worker's Triton config (decoded on every
 * call, as upstream), else its repository config, else its plain Dynamo config; undefined without one.
 */
export function declaredTensorConfig(model: TensorModel, repository: ModelConfigMessage | undefined): ModelConfigMessage | undefined {
  const triton = model.config?.triton_model_config;
  if (triton) return decodeTritonConfig(model.name, triton);
  return repository ?? (model.config ? tensorConfig(model.config) : undefined);
}

/** Serializes a Triton ModelConfig (what a tensor worker puts in `triton_model_config`). */
export function encodeModelConfig(config: ModelConfigMessage): Uint8Array {
  const type = protoRoot().lookupType('inference.ModelConfig');
  return type.encode(type.fromObject(config)).finish();
}

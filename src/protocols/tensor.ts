// The tensor data model exchanged with tensor workers (upstream's NvCreateTensorRequest/Response),
// shared by the gRPC frontend and the runtime. Field names follow upstream's JSON.
import type { GenerateContext } from './engine.js';

export type TensorDataType =
  | 'Bool'
  | 'Uint8'
  | 'Uint16'
  | 'Uint32'
  | 'Uint64'
  | 'Int8'
  | 'Int16'
  | 'Int32'
  | 'Int64'
  | 'Float16'
  | 'BFloat16'
  | 'Float32'
  | 'Float64'
  | 'Bytes';

/** Element values: booleans, numbers, bigints for the 64-bit integers (exact), byte strings for Bytes. */
export type TensorValues = boolean[] | number[] | bigint[] | Uint8Array[];

/** Upstream's adjacently tagged `FlattenTensor`. */
export interface FlattenTensor {
  data_type: TensorDataType;
  values: TensorValues;
}

/** Upstream's externally tagged ParameterValue. */
export type ParameterValue =
  | { bool: boolean }
  | { int64: number }
  | { string: string }
  | { double: number }
  | { uint64: number };

export type Parameters = Record<string, ParameterValue>;

export interface TensorMetadata {
  name: string;
  data_type: TensorDataType;
  shape: number[];
  parameters?: Parameters;
}

export interface Tensor {
  metadata: TensorMetadata;
  data: FlattenTensor;
}

export interface RequestedOutput {
  name: string;
  parameters?: Parameters;
}

export interface NvCreateTensorRequest {
  id: string | null;
  model: string;
  tensors: Tensor[];
  parameters?: Parameters;
  outputs?: RequestedOutput[];
}

export interface NvCreateTensorResponse {
  id?: string | null;
  model: string;
  tensors: Tensor[];
  parameters?: Parameters;
}

/** What a tensor worker registers: its tensors, or a serialized Triton ModelConfig that overrides them. */
export interface TensorModelConfig {
  name: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** Serialized `inference.ModelConfig` protobuf. */
  triton_model_config?: Uint8Array;
}

/** A tensor worker: one request in, any number of responses out (ModelInfer needs exactly one). */
export interface TensorEngine {
  generate(request: NvCreateTensorRequest, ctx: GenerateContext): AsyncIterable<NvCreateTensorResponse>;
}

/** A tensor model as a worker registers it (model type TensorBased, input Tensor). */
export interface TensorModel {
  /** The name clients use (upstream: the card's display name). */
  name: string;
  engine: TensorEngine;
  /** Without a config, ModelMetadata/ModelConfig answer INVALID_ARGUMENT as upstream. */
  config?: TensorModelConfig;
}

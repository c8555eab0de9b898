// KServe messages as @grpc/proto-loader decodes them (snake_case, int64 as strings, enums as
// names, defaults filled, bytes as Buffer), and the looser shapes we hand it to encode.

export type ParameterChoice = 'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param';

export interface InferParameter {
  bool_param?: boolean;
  int64_param?: string | number;
  string_param?: string;
  double_param?: number;
  uint64_param?: string | number;
  parameter_choice?: ParameterChoice;
}

export type InferParameters = Record<string, InferParameter>;

export interface InferTensorContents {
  bool_contents?: boolean[];
  int_contents?: number[];
  int64_contents?: (string | number)[];
  uint_contents?: number[];
  uint64_contents?: (string | number)[];
  fp32_contents?: number[];
  fp64_contents?: number[];
  bytes_contents?: Uint8Array[];
}

export interface InferInputTensor {
  name: string;
  datatype: string;
  shape: (string | number)[];
  parameters?: InferParameters;
  contents?: InferTensorContents | null;
}

export interface InferRequestedOutputTensor {
  name: string;
  parameters?: InferParameters;
}

export interface ModelInferRequest {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: InferParameters;
  inputs: InferInputTensor[];
  outputs?: InferRequestedOutputTensor[];
  raw_input_contents?: Uint8Array[];
}

export interface InferOutputTensor {
  name: string;
  datatype: string;
  shape: (string | number)[];
  parameters?: InferParameters;
  contents?: InferTensorContents;
}

export interface ModelInferResponse {
  model_name: string;
  model_version: string;
  id: string;
  parameters: InferParameters;
  outputs: InferOutputTensor[];
  raw_output_contents: Uint8Array[];
}

export interface ModelStreamInferResponse {
  error_message: string;
  infer_response: ModelInferResponse | null;
}

export interface TensorMetadataMessage {
  name: string;
  datatype: string;
  shape: (string | number)[];
}

export interface ModelMetadataResponse {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadataMessage[];
  outputs: TensorMetadataMessage[];
}

/** `inference.ModelConfig` as a plain object (only the fields this server builds are typed). */
export interface ModelConfigMessage {
  name: string;
  platform?: string;
  backend?: string;
  input?: { name: string; data_type: string; dims: (string | number)[]; optional?: boolean }[];
  output?: { name: string; data_type: string; dims: (string | number)[] }[];
  [field: string]: unknown;
}

/** Shape values from the wire (int64 as strings) as numbers. */
export function shapeOf(shape: readonly (string | number)[]): number[] {
  return shape.map(Number);
}

// The KServe v2 core both frontends serve (gRPC and Triton's HTTP/REST): the models, their
// metadata and configs, tensor conversion and checks, and inference runs.
export {
  KserveCore,
  createKserveCore,
  type StartedRun,
  type RunOptions,
  type ServerMetadata,
  type DeclaredInput,
  type DeclaredInputs,
} from './kserve-core.js';
export { KserveModels, type ResolvedModel, type ModelIndexEntry } from './model-registry.js';
export type { InferRun } from './infer.js';
export type { InferEvent, RunAnswers } from './infer-event.js';
export { ModelRepository, type RepositoryEntry } from './model-config/repository.js';
export { parseTextFormat } from './model-config/pbtxt.js';
export { encodeModelConfig } from './model-config/model-info.js';
export { protoDir, protoFiles, protoRoot, TO_OBJECT } from './proto-files.js';
export { dataTypeByKserve, dataTypeByDynamo, dataTypeByTriton, type DataTypeInfo } from './tensor/data-types.js';
export { floatToHalf, halfToFloat, floatToBf16, bf16ToFloat } from './tensor/half-float.js';
export { encodeRaw, decodeRaw, joinLengthPrefixed, splitLengthPrefixed } from './tensor/raw-codec.js';
export { typedValues } from './tensor/convert.js';
export { parameterScalar } from './tensor/parameters.js';
export { shapeOf } from './wire-types.js';
export type * from './wire-types.js';

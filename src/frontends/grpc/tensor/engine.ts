import type { GenerateContext } from '../../../protocols/index.js';
import type { NvCreateTensorRequest, NvCreateTensorResponse, TensorModelConfig } from './types.js';

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

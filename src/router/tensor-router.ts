// The router of a tensor model (KServe gRPC): round-robin over the model's tensor workers, upstream's
// default push router, through the same routing layers as LLM models.
import type { NvCreateTensorRequest, NvCreateTensorResponse, TensorEngine } from '../protocols/index.js';
import { createRouterPolicy } from './policies/index.js';
import { TENSOR_REQUESTS } from './request-views.js';
import { Router, type RouterOptions } from './router.js';

export class TensorRouter extends Router<NvCreateTensorRequest, NvCreateTensorResponse> implements TensorEngine {
  constructor(modelName: string, opts: Pick<RouterOptions, 'health' | 'stallTimeoutMs'> = {}) {
    super(modelName, createRouterPolicy('round-robin'), TENSOR_REQUESTS, opts);
  }
}

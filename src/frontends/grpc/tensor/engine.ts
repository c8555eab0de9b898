export type { TensorEngine, TensorModel } from '../../../protocols/tensor.js';

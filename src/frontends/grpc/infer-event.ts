import type { ModelInferResponse } from './wire-types.js';

/**
 * One item of an inference run: a response, or an error raised inside the response stream
 * (`conversion` when a worker response failed validation/conversion rather than the worker failing).
 * Errors that end the whole RPC are thrown instead.
 */
export type InferEvent =
  | { response: ModelInferResponse; error?: undefined }
  | { error: string; conversion?: boolean; response?: undefined };

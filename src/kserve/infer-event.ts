import type { HeaderLookup, RequestLifecycle } from '../pipeline/index.js';
import type { ModelInferResponse } from './wire-types.js';

/**
 * One item of an inference run: a response, or an error raised inside the response stream
 * (`conversion` when a worker response failed validation/conversion rather than the worker failing).
 * Errors that end the whole RPC are thrown instead.
 */
export type InferEvent =
  | { response: ModelInferResponse; error?: undefined }
  | { error: string; conversion?: boolean; response?: undefined };

/** How a run answers: as events (ModelStreamInfer), or as its one response (ModelInfer). Only one of them is used. */
export interface RunAnswers {
  events: AsyncGenerator<InferEvent>;
  /** The one response a unary ModelInfer returns, or the error upstream reports for the run. */
  unary(): Promise<ModelInferResponse>;
}

/** What one inference run is given besides its request. */
export interface RunContext {
  signal: AbortSignal;
  /** The id engines see: the request's own when it is a UUID, else a fresh one. */
  requestId: string;
  /** The run's request events. */
  request: RequestLifecycle;
  /** Passed through to every engine request. */
  metadata?: Readonly<Record<string, string>>;
  /** The call's headers, for the routing headers of a completions run. */
  headers?: HeaderLookup;
}

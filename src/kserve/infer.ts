// Routes a ModelInferRequest to its model's path (tensor or completions), each of which answers
// with InferEvents or one unary response (reference/kserve.md §3, §7).

import type { HeaderLookup } from '../pipeline/index.js';
import { randomUUID } from 'node:crypto';
import { RequestLifecycle } from '../pipeline/index.js';
import { ValidationError, type NvCreateTensorRequest, type RequestScope, type TraceHeaders } from '../protocols/index.js';
import { toCompletionInputs } from './completions/request.js';
import { runCompletion } from './completions/run.js';
import type { RunAnswers, RunContext } from './infer-event.js';
import { declaredTensorConfig } from './model-config/model-info.js';
import type { KserveModels } from './model-registry.js';
import { parseFailure } from './run-errors.js';
import { checkInputsAgainstConfig } from './tensor/config-check.js';
import { toTensorRequest } from './tensor/convert.js';
import { runTensor } from './tensor/run.js';
import type { ModelInferRequest } from './wire-types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The request's `id` when it is a UUID (the engine sees the client's id), else a fresh one. */
function engineRequestId(id: string): string {
  return id && UUID.test(id) ? id : randomUUID();
}

export interface InferRun extends RunAnswers {
  model: string;
  /** Its request events: the service publishes the outcome, the run the tokens. */
  request: RequestLifecycle;
}

export interface InferOptions {
  signal: AbortSignal;
  requestType: 'stream' | 'unary';
  /** The frontend the run's request events belong to. */
  scope: RequestScope;
  metadata?: Readonly<Record<string, string>>;
  /** The call's headers: the routing headers of a completions run. */
  headers?: HeaderLookup;
  /** The client's W3C trace context (call metadata). */
  trace?: TraceHeaders;
  /** The gRPC method path. */
  operation?: string;
}

/**
 * Resolves and converts the request, then starts its request events; throws the RPC-level error
 * for unknown models and bad input (those are not counted as requests).
 */
export function startInfer(models: KserveModels, req: ModelInferRequest, opts: InferOptions): InferRun {
  const resolved = models.require(req.model_name);
  const id = req.id ?? '';
  const requestId = engineRequestId(id);
  const start = (endpoint: string): RunContext => ({
    signal: opts.signal,
    requestId,
    metadata: opts.metadata,
    headers: opts.headers,
    request: RequestLifecycle.start({
      scope: opts.scope,
      id: requestId,
      model: req.model_name,
      endpoint,
      requestType: opts.requestType,
      trace: opts.trace,
      operation: opts.operation,
    }),
  });
  if (resolved.kind === 'tensor') {
    let request: NvCreateTensorRequest;
    try {
      const declared = declaredTensorConfig(resolved.model, models.repository?.get(req.model_name)?.config);
      if (declared) checkInputsAgainstConfig(req, declared);
      request = toTensorRequest(req);
    } catch (err) {
      throw parseFailure(err);
    }
    const raw = (req.raw_input_contents?.length ?? 0) > 0;
    const ctx = start('tensor');
    return { model: req.model_name, request: ctx.request, ...runTensor(resolved.model, request, id, raw, ctx) };
  }
  let inputs;
  try {
    inputs = toCompletionInputs(req);
  } catch (err) {
    throw parseFailure(err);
  }
  if (opts.requestType === 'unary' && inputs.stream) throw new ValidationError('Streaming is not supported for this endpoint');
  const ctx = start('completions');
  return { model: req.model_name, request: ctx.request, ...runCompletion(resolved.served, id, inputs, ctx) };
}

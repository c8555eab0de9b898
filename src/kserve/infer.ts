// Routes a ModelInferRequest to its model's path (tensor or completions) and turns worker output
// into InferEvents; the unary fold rules live here too (reference/kserve.md §3, §7).

import type { HeaderLookup } from '../pipeline/index.js';
import { randomUUID } from 'node:crypto';
import { RequestLifecycle } from '../pipeline/index.js';
import {
  InternalError,
  ValidationError,
  type MigrationType,
  type NvCreateTensorRequest,
  type RequestScope,
  type TensorModel,
  type TraceHeaders,
} from '../protocols/index.js';
import { toCompletionInputs } from './completions/request.js';
import { runCompletion } from './completions/run.js';
import type { InferEvent, RunContext } from './infer-event.js';
import { declaredTensorConfig } from './model-config/model-info.js';
import type { KserveModels } from './model-registry.js';
import { errorText, generateFailure, parseFailure } from './run-errors.js';
import { checkInputsAgainstConfig } from './tensor/config-check.js';
import { fromTensorResponse, toTensorRequest } from './tensor/convert.js';
import { checkResponseFields } from './tensor/validate.js';
import type { ModelInferRequest, ModelInferResponse } from './wire-types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The request's `id` when it is a UUID (the engine sees the client's id), else a fresh one. */
function engineRequestId(id: string): string {
  return id && UUID.test(id) ? id : randomUUID();
}

export interface InferRun {
  model: string;
  /** Its request events: the service publishes the outcome, the run the tokens. */
  request: RequestLifecycle;
  events: AsyncGenerator<InferEvent>;
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
    return { model: req.model_name, request: ctx.request, events: runTensor(resolved.model, request, id, raw, ctx) };
  }
  let inputs;
  try {
    inputs = toCompletionInputs(req);
  } catch (err) {
    throw parseFailure(err);
  }
  if (opts.requestType === 'unary' && inputs.stream) throw new ValidationError('Streaming is not supported for this endpoint');
  const ctx = start('completions');
  return { model: req.model_name, request: ctx.request, events: runCompletion(resolved.served, req, inputs, ctx) };
}

async function* runTensor(
  model: TensorModel,
  request: NvCreateTensorRequest,
  id: string,
  raw: boolean,
  ctx: RunContext,
): AsyncGenerator<InferEvent> {
  let outputs: AsyncIterable<unknown>;
  try {
    const migrated = (type: MigrationType, seconds: number): void => ctx.request.migrated(type, seconds);
    outputs = model.engine.generate(request, { requestId: ctx.requestId, signal: ctx.signal, metadata: ctx.metadata, migrated });
  } catch (err) {
    throw generateFailure('Failed to generate tensor response stream', err);
  }
  try {
    for await (const out of outputs) {
      let response: ModelInferResponse;
      try {
        checkResponseFields(out);
      } catch (err) {
        yield { error: errorText(err) };
        continue;
      }
      try {
        response = fromTensorResponse(out, id, raw);
      } catch (err) {
        yield { error: errorText(err), conversion: true };
        continue;
      }
      yield { response };
    }
  } catch (err) {
    yield { error: errorText(err) };
  }
}

/** The one response a unary ModelInfer returns, or the error upstream reports for the run. */
export async function foldUnary(run: InferRun): Promise<ModelInferResponse> {
  let response: ModelInferResponse | undefined;
  try {
    for await (const event of run.events) {
      if (event.error !== undefined) {
        if (event.conversion) throw new ValidationError(`Failed to parse response: ${event.error}`);
        throw new InternalError(`Failed to fold completions stream: ${event.error}`);
      }
      if (response) throw new InternalError('Failed to fold completions stream: Multiple responses in non-streaming mode');
      response = event.response;
    }
  } finally {
    await run.events.return(undefined);
  }
  if (!response) throw new InternalError('Failed to fold completions stream: No response received');
  return response;
}

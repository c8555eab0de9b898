// Routes a ModelInferRequest to its model's path (tensor or completions) and turns worker output
// into InferEvents; the unary fold rules live here too (reference/kserve.md §3, §7).

import { InternalError, ValidationError, type TensorModel, type NvCreateTensorRequest } from '../../protocols/index.js';
import { toCompletionInputs } from './completions/request.js';
import { runCompletion } from './completions/run.js';
import type { InferEvent } from './infer-event.js';
import type { KserveModels } from './model-registry.js';
import { engineRequestId } from './request-id.js';
import { errorText, generateFailure, parseFailure } from './run-errors.js';
import { fromTensorResponse, toTensorRequest } from './tensor/convert.js';
import { checkResponseFields } from './tensor/validate.js';
import type { ModelInferRequest, ModelInferResponse } from './wire-types.js';

export interface InferRun {
  model: string;
  endpoint: 'completions' | 'tensor';
  events: AsyncGenerator<InferEvent>;
}

/** Resolves and converts the request; throws the RPC-level error for unknown models and bad input. */
export function startInfer(
  models: KserveModels,
  req: ModelInferRequest,
  signal: AbortSignal,
  unary: boolean,
  metadata?: Readonly<Record<string, string>>,
): InferRun {
  const resolved = models.require(req.model_name);
  if (resolved.kind === 'tensor') {
    let request: NvCreateTensorRequest;
    try {
      request = toTensorRequest(req);
    } catch (err) {
      throw parseFailure(err);
    }
    const raw = (req.raw_input_contents?.length ?? 0) > 0;
    return { model: req.model_name, endpoint: 'tensor', events: runTensor(resolved.model, request, req.id ?? '', raw, signal, metadata) };
  }
  let inputs;
  try {
    inputs = toCompletionInputs(req);
  } catch (err) {
    throw parseFailure(err);
  }
  if (unary && inputs.stream) throw new ValidationError('Streaming is not supported for this endpoint');
  return { model: req.model_name, endpoint: 'completions', events: runCompletion(resolved.served, req, inputs, signal, metadata) };
}

async function* runTensor(
  model: TensorModel,
  request: NvCreateTensorRequest,
  id: string,
  raw: boolean,
  signal: AbortSignal,
  metadata: Readonly<Record<string, string>> | undefined,
): AsyncGenerator<InferEvent> {
  let outputs: AsyncIterable<unknown>;
  try {
    outputs = model.engine.generate(request, { requestId: engineRequestId(id), signal, metadata });
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

// Runs one KServe tensor request on its model's engine and answers with KServe responses: each
// worker response checked and converted, or, for a unary ModelInfer, the one response it must be.

import { ValidationError, type MigrationType, type NvCreateTensorRequest, type TensorModel } from '../../protocols/index.js';
import type { InferEvent, RunAnswers, RunContext } from '../infer-event.js';
import { errorText, foldFailure, generateFailure } from '../run-errors.js';
import type { ModelInferResponse } from '../wire-types.js';
import { fromTensorResponse } from './convert.js';
import { checkResponseFields } from './validate.js';

/** `raw`: the request sent raw contents, so the responses carry theirs raw too. */
export function runTensor(model: TensorModel, request: NvCreateTensorRequest, id: string, raw: boolean, ctx: RunContext): RunAnswers {
  const events = tensorEvents(model, request, id, raw, ctx);
  return { events, unary: () => onlyResponse(events) };
}

async function* tensorEvents(
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

/** A unary answer: exactly one response, no error; a response that failed conversion is the client's 400. */
async function onlyResponse(events: AsyncGenerator<InferEvent>): Promise<ModelInferResponse> {
  let response: ModelInferResponse | undefined;
  try {
    for await (const event of events) {
      if (event.error !== undefined) {
        if (event.conversion) throw new ValidationError(`Failed to parse response: ${event.error}`);
        throw foldFailure(event.error);
      }
      if (response) throw foldFailure('Multiple responses in non-streaming mode');
      response = event.response;
    }
  } finally {
    await events.return(undefined);
  }
  if (!response) throw foldFailure('No response received');
  return response;
}

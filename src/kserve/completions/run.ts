// Runs one KServe completions request through the shared OpenAI pipeline (validate → preprocess →
// generateChoices) and yields KServe responses: one folded response, or one per streamed step.

import type { ServedModel } from '../../models/index.js';
import { generateChoices, ResponseFold, routingFromHeaders, type DecodedStep } from '../../pipeline/index.js';
import type { InferEvent, RunContext } from '../infer-event.js';
import { errorText, generateFailure, parseFailure } from '../run-errors.js';
import type { ModelInferRequest } from '../wire-types.js';
import type { CompletionInputs } from './request.js';
import { completionResponse, type ExtraOutputs } from './response.js';

const GENERATE_FAILED = 'Failed to generate completions';

/**
 * Errors before the first step end the RPC (`Failed to generate completions`); later ones are
 * in-stream error events. With `stream` false the steps are folded into one response.
 */
export async function* runCompletion(
  served: ServedModel,
  req: ModelInferRequest,
  inputs: CompletionInputs,
  ctx: RunContext,
): AsyncGenerator<InferEvent> {
  let request;
  let runs;
  try {
    const routing = ctx.headers ? routingFromHeaders(ctx.headers) : undefined;
    request = served.preprocessor.validateCompletion(inputs.body);
    runs = await served.preprocessor.preprocessCompletion(request, routing);
  } catch (err) {
    throw parseFailure(err);
  }
  ctx.request.tokenized(runs);
  const n = request.n ?? 1;
  const id = req.id ?? '';
  const inputTokens = runs.reduce((sum, r) => sum + r.promptTokens, 0);
  const extras: ExtraOutputs = {
    inputTokens: inputs.returnInputTokens ? inputTokens : undefined,
    outputTokens: inputs.returnOutputTokens,
  };
  let steps: AsyncIterable<DecodedStep>;
  try {
    steps = generateChoices({
      target: { engine: served.router, tokenTable: served.tokenTable },
      prompts: runs,
      n,
      requestId: ctx.requestId,
      signal: ctx.signal,
      metadata: ctx.metadata,
      hooks: ctx.request.contextHooks(),
    });
  } catch (err) {
    throw generateFailure(GENERATE_FAILED, err);
  }
  const iterator = steps[Symbol.asyncIterator]();
  let first: IteratorResult<DecodedStep>;
  try {
    first = await iterator.next();
  } catch (err) {
    throw generateFailure(GENERATE_FAILED, err);
  }
  const model = served.name;
  const fold = new ResponseFold({ promptTokens: inputTokens, collectText: !inputs.stream, request: ctx.request });
  if (inputs.stream) {
    yield* streamSteps(first, iterator, fold, model, id, extras);
    return;
  }
  try {
    for (let r = first; !r.done; r = await iterator.next()) fold.step(r.value);
  } catch (err) {
    yield { error: errorText(err) };
    return;
  }
  const echo = inputs.echoPrompt ? inputs.prompt : '';
  const choices = fold.choices().map((c) => ({ text: echo + c.text, finishReason: c.finishReason, outputTokens: c.outputTokens }));
  yield { response: completionResponse(model, id, choices, extras) };
}

async function* streamSteps(
  first: IteratorResult<DecodedStep>,
  iterator: AsyncIterator<DecodedStep>,
  fold: ResponseFold,
  model: string,
  id: string,
  extras: ExtraOutputs,
): AsyncGenerator<InferEvent> {
  try {
    for (let r = first; !r.done; r = await iterator.next()) {
      const delta = fold.step(r.value);
      if (!delta) continue;
      const choice = { text: delta.text, finishReason: delta.finishReason, outputTokens: delta.tokens };
      yield { response: completionResponse(model, id, [choice], extras) };
    }
  } catch (err) {
    yield { error: errorText(err) };
  }
}

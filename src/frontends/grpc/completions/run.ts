// Runs one KServe completions request through the shared OpenAI pipeline (validate → preprocess →
// generateChoices) and yields KServe responses: one folded response, or one per streamed step.

import type { ServedModel } from '../../../models/index.js';
import { generateChoices, type DecodedStep } from '../../../pipeline/index.js';
import type { InferEvent } from '../infer-event.js';
import { engineRequestId } from '../request-id.js';
import { errorText, generateFailure, parseFailure } from '../run-errors.js';
import type { ModelInferRequest } from '../wire-types.js';
import type { CompletionInputs } from './request.js';
import { completionResponse, type ChoiceOutput, type ExtraOutputs } from './response.js';

const GENERATE_FAILED = 'Failed to generate completions';

/** `cancelled` from an engine that stopped on its own reads as `stop`, as on the HTTP side. */
function finishText(reason: DecodedStep['finish_reason']): string | null {
  return reason === 'cancelled' ? 'stop' : reason;
}

/**
 * Errors before the first step end the RPC (`Failed to generate completions`); later ones are
 * in-stream error events. With `stream` false the steps are folded into one response.
 */
export async function* runCompletion(
  served: ServedModel,
  req: ModelInferRequest,
  inputs: CompletionInputs,
  signal: AbortSignal,
  metadata?: Readonly<Record<string, string>>,
): AsyncGenerator<InferEvent> {
  let request;
  let runs;
  try {
    request = served.preprocessor.validateCompletion(inputs.body);
    runs = await served.preprocessor.preprocessCompletion(request);
  } catch (err) {
    throw parseFailure(err);
  }
  const n = request.n ?? 1;
  const id = req.id ?? '';
  const internalId = engineRequestId(id);
  const inputTokens = runs.reduce((sum, r) => sum + r.promptTokens, 0);
  const extras: ExtraOutputs = {
    inputTokens: inputs.returnInputTokens ? inputTokens : undefined,
    outputTokens: inputs.returnOutputTokens,
  };
  let steps: AsyncIterable<DecodedStep>;
  try {
    steps = generateChoices({ engine: served.router, tokenTable: served.tokenTable }, runs, n, internalId, signal, metadata);
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
  if (inputs.stream) {
    yield* streamSteps(first, iterator, model, id, extras);
    return;
  }
  const choices = new Map<number, ChoiceOutput>();
  try {
    for (let r = first; !r.done; r = await iterator.next()) {
      const step = r.value;
      let choice = choices.get(step.index);
      if (!choice) {
        choice = { text: inputs.echoPrompt ? inputs.prompt : '', finishReason: null, outputTokens: 0 };
        choices.set(step.index, choice);
      }
      choice.text += step.text;
      choice.outputTokens = step.usage?.completion_tokens ?? choice.outputTokens + step.token_ids.length;
      if (step.finish_reason !== null) choice.finishReason = finishText(step.finish_reason);
    }
  } catch (err) {
    yield { error: errorText(err) };
    return;
  }
  const ordered = [...choices.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  yield { response: completionResponse(model, id, ordered, extras) };
}

async function* streamSteps(
  first: IteratorResult<DecodedStep>,
  iterator: AsyncIterator<DecodedStep>,
  model: string,
  id: string,
  extras: ExtraOutputs,
): AsyncGenerator<InferEvent> {
  try {
    for (let r = first; !r.done; r = await iterator.next()) {
      const step = r.value;
      const finishReason = finishText(step.finish_reason);
      // Steps whose text the stop-string jail still holds carry nothing to send.
      if (step.text.length === 0 && finishReason === null) continue;
      const choice: ChoiceOutput = { text: step.text, finishReason, outputTokens: step.token_ids.length };
      yield { response: completionResponse(model, id, [choice], extras) };
    }
  } catch (err) {
    yield { error: errorText(err) };
  }
}

// Runs one KServe completions request through the shared OpenAI pipeline (check → preprocess →
// generateChoices) and answers with KServe responses: one per streamed step, or the steps folded
// once into one response (a unary ModelInfer, or a non-streaming request on ModelStreamInfer).

import type { ServedModel } from '../../models/index.js';
import { generateChoices, ResponseFold, routingFromHeaders, type DecodedStep, type FoldedChoice } from '../../pipeline/index.js';
import type { InferEvent, RunAnswers, RunContext } from '../infer-event.js';
import { errorText, foldFailure, generateFailure, parseFailure } from '../run-errors.js';
import type { ModelInferResponse } from '../wire-types.js';
import type { CompletionInputs } from './request.js';
import { completionResponse, type ExtraOutputs } from './response.js';

const GENERATE_FAILED = 'Failed to generate completions';

/** A started run: its first step is in, so nothing that fails later ends the RPC. */
interface Started {
  first: IteratorResult<DecodedStep>;
  steps: AsyncIterator<DecodedStep>;
  fold: ResponseFold;
  extras: ExtraOutputs;
}

/**
 * Errors before the first step end the RPC (`Failed to parse request: ...`, `Failed to generate
 * completions: ...`); later ones are in-stream error events, or the unary answer's fold failure.
 */
export function runCompletion(served: ServedModel, id: string, inputs: CompletionInputs, ctx: RunContext): RunAnswers {
  const run = new CompletionRun(served, id, inputs, ctx);
  return { events: run.events(), unary: () => run.unary() };
}

class CompletionRun {
  constructor(
    private readonly served: ServedModel,
    private readonly id: string,
    private readonly inputs: CompletionInputs,
    private readonly ctx: RunContext,
  ) {}

  async *events(): AsyncGenerator<InferEvent> {
    const started = await this.start();
    if (this.inputs.stream) {
      yield* this.streamSteps(started);
      return;
    }
    let choices: FoldedChoice[];
    try {
      choices = await foldSteps(started);
    } catch (err) {
      yield { error: errorText(err) };
      return;
    }
    yield { response: this.folded(choices, started.extras) };
  }

  async unary(): Promise<ModelInferResponse> {
    const started = await this.start();
    let choices: FoldedChoice[];
    try {
      choices = await foldSteps(started);
    } catch (err) {
      throw foldFailure(errorText(err));
    }
    return this.folded(choices, started.extras);
  }

  private async start(): Promise<Started> {
    const { served, inputs, ctx } = this;
    let request;
    let runs;
    try {
      const routing = ctx.headers ? routingFromHeaders(ctx.headers) : undefined;
      request = served.preprocessor.checkCompletion(inputs.request);
      runs = await served.preprocessor.preprocessCompletion(request, routing);
    } catch (err) {
      throw parseFailure(err);
    }
    ctx.request.tokenized(runs);
    const inputTokens = runs.reduce((sum, r) => sum + r.promptTokens, 0);
    const extras: ExtraOutputs = {
      inputTokens: inputs.returnInputTokens ? inputTokens : undefined,
      outputTokens: inputs.returnOutputTokens,
    };
    let steps: AsyncIterator<DecodedStep>;
    let first: IteratorResult<DecodedStep>;
    try {
      steps = generateChoices({
        target: { engine: served.router, tokenTable: served.tokenTable },
        prompts: runs,
        n: request.n ?? 1,
        requestId: ctx.requestId,
        signal: ctx.signal,
        metadata: ctx.metadata,
        hooks: ctx.request.contextHooks(),
      })[Symbol.asyncIterator]();
      first = await steps.next();
    } catch (err) {
      throw generateFailure(GENERATE_FAILED, err);
    }
    const fold = new ResponseFold({ promptTokens: inputTokens, collectText: !inputs.stream, request: ctx.request });
    return { first, steps, fold, extras };
  }

  private folded(choices: readonly FoldedChoice[], extras: ExtraOutputs): ModelInferResponse {
    const { echo } = this.inputs;
    const outputs = choices.map((c) => ({ text: echo + c.text, finishReason: c.finishReason, outputTokens: c.outputTokens }));
    return completionResponse(this.served.name, this.id, outputs, extras);
  }

  private async *streamSteps({ first, steps, fold, extras }: Started): AsyncGenerator<InferEvent> {
    try {
      for (let r = first; !r.done; r = await steps.next()) {
        const delta = fold.step(r.value);
        if (!delta) continue;
        const choice = { text: delta.text, finishReason: delta.finishReason, outputTokens: delta.tokens };
        yield { response: completionResponse(this.served.name, this.id, [choice], extras) };
      }
    } catch (err) {
      yield { error: errorText(err) };
    }
  }
}

/** Every step into the run's fold: its choices, whole. */
async function foldSteps({ first, steps, fold }: Started): Promise<FoldedChoice[]> {
  for (let r = first; !r.done; r = await steps.next()) fold.step(r.value);
  return fold.choices();
}

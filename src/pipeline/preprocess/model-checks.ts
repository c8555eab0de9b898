// The checks a request can only meet against its model's card, run by the preprocessor once the
// request is valid on its own: media parts of a kind the model's chat template renders, and
// prompts (and the output they ask for) that fit its context window.

import { ValidationError, type ChatMessage } from '../../protocols/index.js';
import { mediaParts, type MediaKind } from './media-parts.js';
import { fail } from './validation-failure.js';

/**
 * Every media part must be of a kind the model's template renders; the 400 names the part, before
 * the template could fail on a part it does not know.
 */
export function checkMediaAccepted(messages: readonly ChatMessage[], accepted: ReadonlySet<MediaKind>): void {
  for (const { path, kind } of mediaParts(messages)) {
    if (accepted.has(kind)) continue;
    if (accepted.size === 0) fail(`${path}: this model accepts text only`);
    fail(`${path}: this model does not accept ${kind} input (it accepts text and ${[...accepted].join(', ')})`);
  }
}

/**
 * The max_tokens a prompt of `promptTokens` runs with: the requested one, or what the context
 * window leaves when none is; a 400 when the prompt, or the prompt and the request, do not fit.
 */
export function fittedMaxTokens(contextLength: number, promptTokens: number, requested: number | null | undefined): number {
  if (promptTokens >= contextLength) {
    throw new ValidationError(
      `This model's maximum context length is ${contextLength} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
    );
  }
  if (requested === null || requested === undefined) return contextLength - promptTokens;
  if (promptTokens + requested > contextLength) {
    throw new ValidationError(
      `This model's maximum context length is ${contextLength} tokens. However, you requested ${promptTokens + requested} tokens (${promptTokens} in the messages, ${requested} in the completion). Please reduce the length of the messages or completion.`,
    );
  }
  return requested;
}

/** Each embeddings input must fit the context window; the 400 names the first that does not. */
export function checkEmbeddingInputsFit(contextLength: number, inputs: readonly number[][]): void {
  const over = inputs.findIndex((ids) => ids.length > contextLength);
  if (over < 0) return;
  throw new ValidationError(
    `input[${over}] has ${inputs[over]!.length} tokens, more than this model's maximum context length of ${contextLength} tokens`,
    { index: over, tokens: inputs[over]!.length, context_length: contextLength },
  );
}

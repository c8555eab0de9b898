// Which reasoning parser a request's choices get: the one the model's card names, told whether the
// request turned thinking off. The preprocessor has already folded every opt-out (`thinking`,
// `thinking.type: disabled`, `chat_template_args.enable_thinking: false`) into `enable_thinking`.

import type { ChatCompletionRequest, ReasoningParserName } from '../../../protocols/index.js';
import type { ReasoningParser } from './reasoning-parser.js';
import { REASONING_PARSERS } from './reasoning-registry.js';

/** Makes one parser per choice; undefined when the model names none (the fold then does no work). */
export type ChoiceReasoning = () => ReasoningParser;

export function reasoningFor(name: ReasoningParserName | null, request: Pick<ChatCompletionRequest, 'chat_template_args'>): ChoiceReasoning | undefined {
  if (name === null) return undefined;
  const factory = REASONING_PARSERS[name];
  const thinkingEnabled = request.chat_template_args?.enable_thinking !== false;
  return () => factory({ thinkingEnabled });
}

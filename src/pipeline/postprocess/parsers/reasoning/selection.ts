// Which reasoning parser a request's choices get, and how it starts: the one the model's card names,
// under that name's rules (reasoning-rules.ts) read against the request's template arguments (where
// the preprocessor folded every thinking control and the deployment's default) and the prompt the
// chat template rendered for this request.

import type { ChatCompletionRequest, ReasoningParserName } from '../../../../protocols/index.js';
import type { ReasoningParser } from './parser.js';
import { REASONING_PARSERS } from './registry.js';
import type { ReplyStart } from './rules.js';

/** Makes one parser per choice; undefined when the model names none (the fold then does no work). */
export type ChoiceReasoning = () => ReasoningParser;

const ANSWER_ONLY: ReasoningParser = {
  push: (text) => ({ reasoning: '', content: text }),
  finish: () => ({ reasoning: '', content: '' }),
};

/**
 * `prompt`: the text the chat template rendered (absent when the client sent token ids), read for
 * whether it left the reasoning span open.
 */
export function reasoningFor(
  name: ReasoningParserName | null,
  request: Pick<ChatCompletionRequest, 'chat_template_args'>,
  prompt?: string,
): ChoiceReasoning | undefined {
  if (name === null) return undefined;
  const rule = REASONING_PARSERS[name];
  if (rule.off?.(request.chat_template_args)) return rule.whenOff ?? (() => ANSWER_ONLY);
  const startsInside = repliesStartInside(rule.start, prompt);
  return () => rule.parser({ startsInside });
}

/**
 * Whether this request's reply starts inside a reasoning span its rendered prompt opened (or the
 * family's template always opens): where a forced tool call's grammar must let reasoning run first.
 */
export function replyStartsInReasoning(
  name: ReasoningParserName | null,
  request: Pick<ChatCompletionRequest, 'chat_template_args'>,
  prompt: string | undefined,
): boolean {
  if (name === null) return false;
  const rule = REASONING_PARSERS[name];
  return !(rule.off?.(request.chat_template_args) ?? false) && repliesStartInside(rule.start, prompt);
}

function repliesStartInside(start: ReplyStart, prompt: string | undefined): boolean {
  if (start === 'inside') return true;
  if (start === 'markup' || prompt === undefined) return false;
  return prompt.trimEnd().endsWith(start.promptOpener);
}

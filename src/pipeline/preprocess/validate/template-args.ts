// What a chat request gives its chat template: `chat_template_args` (with its alias
// `chat_template_kwargs`), and the generation-prompt flags, which only chat has.

import { fail } from '../validation-failure.js';
import type { Body } from './root.js';

/** `chat_template_kwargs` is an alias of `chat_template_args`; the latter wins on a shared key. */
export function mergedTemplateArgs(body: Body): Record<string, unknown> | null {
  const args = body.chat_template_args as Record<string, unknown> | null | undefined;
  const kwargs = body.chat_template_kwargs as Record<string, unknown> | null | undefined;
  if (!args && !kwargs) return null;
  return { ...kwargs, ...args };
}

export function checkTemplateArgs(args: Record<string, unknown> | null): void {
  if (args && 'chat_template' in args) fail('`chat_template` is not supported inside `chat_template_args`');
}

export function checkGenerationPromptFlags(body: Body): void {
  if (body.continue_final_message === true && body.add_generation_prompt !== false) {
    fail('Cannot set both `continue_final_message` and `add_generation_prompt` to True.');
  }
}

/** Completions render no template: the chat template's flags are refused there. */
export function checkNoGenerationPromptFlags(body: Body): void {
  if (body.add_generation_prompt != null || body.continue_final_message != null) {
    fail('`add_generation_prompt` and `continue_final_message` are only supported on /v1/chat/completions');
  }
}

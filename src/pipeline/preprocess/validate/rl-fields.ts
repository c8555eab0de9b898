// Chat's reinforcement-learning extensions: a token-in prompt (`prompt_token_ids`, or the legacy
// `tokens`, which becomes `nvext.token_data`) in place of messages, token ids back
// (`return_token_ids`), and the rollout fields the worker gets as they are.

import type { NvExt } from '../../../protocols/index.js';
import { present, type FieldKind } from '../json-types.js';
import { fail } from '../validation-failure.js';
import type { Body } from './root.js';

/** The extensions' JSON types (checked with the other root fields). */
export const RL_CHAT_FIELDS: Record<string, FieldKind> = {
  prompt_token_ids: 'uint[]',
  tokens: 'uint[]',
  return_token_ids: 'bool',
  weight_version: 'string',
  truncate_prompt_tokens: 'int',
  return_prompt_logprobs: 'bool',
  return_routed_experts: 'bool',
};

/** The extensions carried to the worker in `extra_args`, under their own names. */
export const RL_PASSTHROUGH_FIELDS = ['weight_version', 'truncate_prompt_tokens', 'return_prompt_logprobs', 'return_routed_experts'] as const;

/** The body gives its prompt as token ids: then `messages` may be absent or empty. */
export function hasTokenPrompt(body: Body): boolean {
  return present(body.prompt_token_ids) || present(body.tokens);
}

/** The rules of the extensions, once their types are known. */
export function checkRlFields(body: Body): void {
  for (const field of ['prompt_token_ids', 'tokens'] as const) {
    const ids = body[field];
    if (Array.isArray(ids) && ids.length === 0) fail(`\`${field}\` must hold at least one token ID`);
  }
  if (present(body.prompt_token_ids) && present(body.tokens)) fail('Give the prompt as `prompt_token_ids` or as `tokens`, not both');
  const truncate = body.truncate_prompt_tokens;
  if (typeof truncate === 'number' && truncate < 1 && truncate !== -1) {
    fail('`truncate_prompt_tokens` must be -1 (the context length) or a positive number of tokens');
  }
  const n = body.n;
  if (body.return_token_ids === true && typeof n === 'number' && n > 1) {
    fail('`return_token_ids` does not support n > 1: one completion token vector cannot be assigned back to several choices');
  }
}

/** The legacy `tokens` moved into `nvext.token_data`, where upstream carries it. */
export function withLegacyTokens(nvext: NvExt | null, body: Body): NvExt | null {
  const tokens = body.tokens;
  if (!Array.isArray(tokens)) return nvext;
  if (nvext?.token_data) fail('Give the prompt as `tokens` or as `nvext.token_data`, not both');
  return { ...nvext, token_data: tokens as number[] };
}

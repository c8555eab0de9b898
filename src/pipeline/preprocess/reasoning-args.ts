// Folds the request's reasoning controls (`thinking`, `reasoning_effort`, and the template's own
// `thinking` / `enable_thinking` / `thinking_mode` keys) into one decision, stated in every
// dialect in `chat_template_args`, so whichever key a model's template reads gets the same answer.

import { ValidationError } from '../../protocols/index.js';
import { isObject } from './json-types.js';

type ThinkingMode = 'enabled' | 'disabled' | 'adaptive';

const TEMPLATE_KEYS = ['thinking', 'enable_thinking', 'thinking_mode'];
const THINKING_TYPE_MESSAGE = 'Validation: `thinking.type` must be `enabled`, `disabled`, or `adaptive`';

function thinkingMode(value: unknown): ThinkingMode | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 'enabled' : 'disabled';
  if (!isObject(value)) {
    throw new ValidationError(
      'Validation: `thinking` must be a boolean or an object with `type` set to `enabled`, `disabled`, or `adaptive`',
    );
  }
  const type = value.type;
  if (type === 'enabled' || type === 'disabled' || type === 'adaptive') return type;
  throw new ValidationError(THINKING_TYPE_MESSAGE);
}

function setThinking(args: Record<string, unknown>, on: boolean): void {
  args.thinking = on;
  args.enable_thinking = on;
  args.thinking_mode = on ? 'enabled' : 'disabled';
}

/** Returns the new template args, or the given ones when the request says nothing about reasoning. */
export function normalizeReasoningArgs(
  thinking: unknown,
  reasoningEffort: unknown,
  templateArgs: Record<string, unknown> | null | undefined,
): Record<string, unknown> | null | undefined {
  const mode = thinkingMode(thinking);
  const effort = reasoningEffort ?? (isObject(templateArgs) ? templateArgs.reasoning_effort ?? undefined : undefined);
  const hasTemplateControl = !!templateArgs && TEMPLATE_KEYS.some((k) => k in templateArgs);
  if (mode === null && effort === undefined && !hasTemplateControl) return templateArgs;

  const args: Record<string, unknown> = { ...templateArgs };
  if (mode === 'enabled' || mode === 'disabled') setThinking(args, mode === 'enabled');
  if (mode === 'adaptive') {
    // The model decides: no boolean toggle may survive.
    delete args.thinking;
    delete args.enable_thinking;
    args.thinking_mode = 'adaptive';
  }
  const decided = decide(args, effort);
  if (decided !== null) setThinking(args, decided);
  if (effort !== undefined) args.reasoning_effort = effort;
  return args;
}

function decide(args: Record<string, unknown>, effort: unknown): boolean | null {
  for (const key of ['thinking', 'enable_thinking']) {
    if (typeof args[key] === 'boolean') return args[key] as boolean;
  }
  const mode = typeof args.thinking_mode === 'string' ? args.thinking_mode.toLowerCase() : null;
  if (mode === 'adaptive') return null;
  if (mode === 'enabled') return true;
  if (mode === 'disabled') return false;
  return typeof effort === 'string' ? effort !== 'none' : null;
}

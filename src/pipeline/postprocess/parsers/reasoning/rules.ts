// How a reasoning parser name behaves per request, as upstream's frontend decides it: where a reply
// starts (inside the span always, inside when the rendered prompt left the span open, or wherever
// the format's own markup says), and which of the request's thinking controls turn the family's
// reasoning off, in which case its text is not parsed at all (docs/reasoning.md has the table).

import type { ReasoningParser, ReasoningParserFactory } from './parser.js';

/** The request's chat template arguments, where every thinking control has been folded. */
export type TemplateArgs = Readonly<Record<string, unknown>> | null | undefined;

/**
 * Where a reply starts: `inside` the span whatever the prompt (the family's template always opens
 * it), inside when the rendered prompt ends with `promptOpener` (trailing whitespace ignored), or
 * where the format's own `markup` says (harmony channels, granite's sentences).
 */
export type ReplyStart = 'inside' | 'markup' | { promptOpener: string };

export interface ReasoningRule {
  parser: ReasoningParserFactory;
  start: ReplyStart;
  /** True when this request turned the family's reasoning off; absent: it never does. */
  off?: (args: TemplateArgs) => boolean;
  /** What parses the reply while reasoning is off; absent: the text passes through as answer. */
  whenOff?: () => ReasoningParser;
}

/** The request's thinking switch: the first boolean of `thinking`, then `enable_thinking`. */
export function thinkingSwitch(args: TemplateArgs): boolean | undefined {
  for (const key of ['thinking', 'enable_thinking']) {
    const value = args?.[key];
    if (typeof value === 'boolean') return value;
  }
  return undefined;
}

/**
 * DeepSeek's reading: the switch, else `thinking_mode` (`chat` off, `thinking` on), else the
 * family's default; the off rule is its negation.
 */
export function deepseekOff(onByDefault: boolean): (args: TemplateArgs) => boolean {
  return (args) => {
    const on = thinkingSwitch(args);
    if (on !== undefined) return !on;
    const mode = args?.thinking_mode;
    if (mode === 'chat') return true;
    if (mode === 'thinking') return false;
    return !onByDefault;
  };
}

/** Kimi K2.5: off only for `thinking: false`. */
export const kimiOff = (args: TemplateArgs): boolean => args?.thinking === false;

/** Nemotron's forced span: off for `enable_thinking: false` or `force_nonempty_content: true`. */
export const nemotronOff = (args: TemplateArgs): boolean =>
  args?.enable_thinking === false || args?.force_nonempty_content === true;

// The request's thinking opt-out (`chat_template_args.enable_thinking: false`), applied once for
// every reasoning format: with thinking off the model writes no reasoning span, so a format that
// starts inside one would otherwise swallow the whole answer as reasoning.

import type { ReasoningParser, ReasoningParserFactory, ReasoningSplit } from './reasoning-parser.js';

const NOTHING: ReasoningSplit = { reasoning: '', content: '' };

/** Passes every text through as content. */
export const contentOnlyParser = (): ReasoningParser => ({
  push: (text) => ({ reasoning: '', content: text }),
  finish: () => NOTHING,
});

/** A factory that builds `make()` when thinking is on and a content-only parser when it is off. */
export function honoringThinkingOptOut(make: () => ReasoningParser): ReasoningParserFactory {
  return ({ thinkingEnabled }) => (thinkingEnabled ? make() : contentOnlyParser());
}

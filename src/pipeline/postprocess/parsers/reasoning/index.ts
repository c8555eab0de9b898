// Reasoning parsers: a choice's text split into reasoning and answer as it streams, by the parser
// name a worker's card gives, started per request as upstream starts it (docs/reasoning.md).
export { REASONING_PARSERS } from './registry.js';
export type { ReasoningRule, ReplyStart, TemplateArgs } from './rules.js';
export { reasoningFor, replyStartsInReasoning, type ChoiceReasoning } from './selection.js';
export type { ReasoningParser, ReasoningParserFactory, ReasoningParserOptions, ReasoningSplit } from './parser.js';

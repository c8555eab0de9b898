// `<think>…</think>`, the format of DeepSeek-R1, Qwen3, GLM-4.5, Nemotron and MiniMax. Spans may
// repeat (interleaved thinking between tool calls) and a stray `</think>` is dropped. Whether the
// output starts inside the span depends on the model's template, hence two parsers.

import { MarkerSpanParser, type MarkerSpanFormat } from './marker-span-parser.js';
import { honoringThinkingOptOut } from './thinking-opt-out.js';

const THINK_TAGS: Omit<MarkerSpanFormat, 'startsOpen'> = {
  starts: ['<think>'],
  ends: ['</think>'],
  reopens: true,
  dropsStrayEnd: true,
};

/** The model writes `<think>` itself (basic, nemotron_deci, glm45). */
export const thinkTagsReasoning = honoringThinkingOptOut(
  () => new MarkerSpanParser({ ...THINK_TAGS, startsOpen: false }),
);

/**
 * The template already opened the span, so output starts as reasoning until `</think>`
 * (deepseek_r1; qwen3 with thinking on; minimax_append_think, whose model never writes `<think>`).
 */
export const openThinkTagsReasoning = honoringThinkingOptOut(
  () => new MarkerSpanParser({ ...THINK_TAGS, startsOpen: true }),
);

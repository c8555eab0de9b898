// `<think>…</think>`, the format of DeepSeek, Qwen3, GLM-4.5, Nemotron, Kimi K2.5, MiniMax and Step3.
// Spans may repeat (interleaved thinking between tool calls) and a stray `</think>` is dropped.
// Whether a reply starts inside the span is decided per request (reasoning-selection.ts).

import { spanParsers, type MarkerSpanFormat } from './marker-span-parser.js';
import type { ReasoningParserFactory } from './parser.js';

export const THINK_OPEN = '<think>';

const THINK_TAGS: MarkerSpanFormat = {
  starts: [THINK_OPEN],
  ends: ['</think>'],
  reopens: true,
  dropsStrayEnd: true,
};

/** Think tags; `toolStarts` are tool-call markers the family may write straight from its reasoning. */
export function thinkTags(toolStarts?: readonly string[]): ReasoningParserFactory {
  return spanParsers(toolStarts ? { ...THINK_TAGS, toolStarts } : THINK_TAGS);
}

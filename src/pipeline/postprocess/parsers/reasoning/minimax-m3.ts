// MiniMax-M3 reasons inside `<mm:think>…</mm:think>`. Its template writes the opener itself, so a
// reply often shows only the end: when the rendered prompt does not show the opener either, the
// reply is held until its first marker says what it was (upstream's dangling-end recovery). M3 may
// also go from its reasoning straight into a tool call, whose namespace token then ends the span.

import { spanParsers } from './marker-span-parser.js';

export const MINIMAX_M3_THINK_OPEN = '<mm:think>';

export const minimaxM3Reasoning = spanParsers({
  starts: [MINIMAX_M3_THINK_OPEN],
  ends: ['</mm:think>'],
  reopens: true,
  dropsStrayEnd: true,
  // The namespace token MiniMax-M3 writes before every tool-call tag.
  toolStarts: [']<]minimax[>['],
  impliedStart: true,
});

// Mistral (Magistral) reasons inside `[THINK]…[/THINK]`; its template opens the span, so output
// counts as reasoning from the start until `[/THINK]` (a `[THINK]` written anyway is dropped).

import { MarkerSpanParser } from './marker-span-parser.js';
import { honoringThinkingOptOut } from './thinking-opt-out.js';

export const mistralReasoning = honoringThinkingOptOut(
  () =>
    new MarkerSpanParser({
      starts: ['[THINK]'],
      ends: ['[/THINK]'],
      startsOpen: true,
      reopens: true,
      dropsStrayEnd: true,
    }),
);

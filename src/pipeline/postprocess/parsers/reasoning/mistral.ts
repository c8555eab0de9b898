// Mistral (Magistral) reasons inside `[THINK]…[/THINK]`; its template opens the span, so output
// counts as reasoning from the start until `[/THINK]` (a `[THINK]` written anyway is dropped).

import { spanParsers } from './marker-span-parser.js';

export const mistralReasoning = spanParsers({
  starts: ['[THINK]'],
  ends: ['[/THINK]'],
  reopens: true,
  dropsStrayEnd: true,
});

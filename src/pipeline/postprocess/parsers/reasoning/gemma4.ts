// Gemma 4 thinks inside `<|channel>…<channel|>`, each span opening with the role label `thought`
// and a newline, which is markup, not reasoning. The model opens the span itself: the markers
// decide, whatever the prompt ended with.

import { MarkerSpanParser } from './marker-span-parser.js';
import type { ReasoningParserFactory } from './parser.js';

const GEMMA4 = {
  starts: ['<|channel>'],
  ends: ['<channel|>'],
  reopens: true,
  dropsStrayEnd: true,
  spanLabel: 'thought\n',
};

export const gemma4Reasoning: ReasoningParserFactory = () => new MarkerSpanParser(GEMMA4, false);

// IBM Granite announces its reasoning in plain words: "Here's my thought process:" (or "Here is
// my thought process:") opens it and "Here's my response:" / "Here is my response:" closes it.
// Only the first span counts: afterwards these sentences are ordinary answer text.

import { MarkerSpanParser } from './marker-span-parser.js';
import { honoringThinkingOptOut } from './thinking-opt-out.js';

export const graniteReasoning = honoringThinkingOptOut(
  () =>
    new MarkerSpanParser({
      starts: ["Here's my thought process:", 'Here is my thought process:'],
      ends: ["Here's my response:", 'Here is my response:'],
      startsOpen: false,
      reopens: false,
      dropsStrayEnd: false,
    }),
);

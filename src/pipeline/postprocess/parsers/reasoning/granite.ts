// IBM Granite announces its reasoning in plain words: "Here's my thought process:" (or "Here is
// my thought process:") opens it and "Here's my response:" / "Here is my response:" closes it.
// Only the first span counts: afterwards these sentences are ordinary answer text.

import { MarkerSpanParser } from './marker-span-parser.js';
import type { ReasoningParserFactory } from './parser.js';

const GRANITE = {
  starts: ["Here's my thought process:", 'Here is my thought process:'],
  ends: ["Here's my response:", 'Here is my response:'],
  reopens: false,
  dropsStrayEnd: false,
};

/** Only the sentences open the span, whatever the prompt ended with. */
export const graniteReasoning: ReasoningParserFactory = () => new MarkerSpanParser(GRANITE, false);

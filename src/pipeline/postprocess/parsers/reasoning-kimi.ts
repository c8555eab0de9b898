// Kimi (K1.5 / K2 thinking) writes its reasoning between `◁think▷` and `◁/think▷`.

import { MarkerSpanParser } from './marker-span-parser.js';
import { honoringThinkingOptOut } from './thinking-opt-out.js';

export const kimiReasoning = honoringThinkingOptOut(
  () =>
    new MarkerSpanParser({
      starts: ['◁think▷'],
      ends: ['◁/think▷'],
      startsOpen: false,
      reopens: true,
      dropsStrayEnd: true,
    }),
);

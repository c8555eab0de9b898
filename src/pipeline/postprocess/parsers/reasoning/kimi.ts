// Kimi (K1.5 / K2 thinking) writes its reasoning between `◁think▷` and `◁/think▷`.

import { spanParsers } from './marker-span-parser.js';

export const KIMI_THINK_OPEN = '◁think▷';

export const kimiReasoning = spanParsers({
  starts: [KIMI_THINK_OPEN],
  ends: ['◁/think▷'],
  reopens: true,
  dropsStrayEnd: true,
});

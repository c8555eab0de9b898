// Kimi K3 reasons in an XTML channel, `<|open|>think<|sep|>…<|close|>think<|sep|>`, whose opener
// the prompt writes when thinking is on. Any other channel marker (the response, tools, the
// message's end) ends the span and stays for the tool-call parser.

import { spanParsers } from './marker-span-parser.js';

export const KIMI_K3_THINK_OPEN = '<|open|>think<|sep|>';

export const kimiK3Reasoning = spanParsers({
  starts: [KIMI_K3_THINK_OPEN],
  ends: ['<|close|>think<|sep|>'],
  reopens: true,
  dropsStrayEnd: true,
  toolStarts: ['<|open|>', '<|close|>', '<|end_of_msg|>'],
});

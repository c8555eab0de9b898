// What every reasoning parser does with a push: add the text to what it holds, then let the format
// settle as much of it as it can. Only the settling differs between formats.

import type { ReasoningParser, ReasoningSplit } from './parser.js';

export abstract class HeldTextParser implements ReasoningParser {
  /** Text received but not yet released: it could still be (the start of) a marker. */
  protected held = '';

  push(text: string): ReasoningSplit {
    const out: ReasoningSplit = { reasoning: '', content: '' };
    this.held += text;
    while (this.held.length > 0 && this.step(out));
    return out;
  }

  abstract finish(): ReasoningSplit;

  /** Settles what it can of the held text into `out`; false when the rest must wait for more. */
  protected abstract step(out: ReasoningSplit): boolean;
}

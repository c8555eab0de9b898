// --enable-streaming-reasoning-dispatch (reference/http.md §1.4): besides the reasoning deltas, one
// `event: reasoning_dispatch` per choice carries a whole reasoning block once it closes, for
// clients that act on the finished thought rather than on its fragments.

import type { ChoiceDelta } from '../../../pipeline/index.js';
import type { SseWriter } from '../sse/index.js';

export class ReasoningDispatch {
  /** The open block's reasoning so far, by choice index. */
  private readonly open: string[] = [];

  constructor(private readonly sse: SseWriter) {}

  /** Sees each delta after its chunk went out: answer text or the finish closes the block. */
  after(delta: ChoiceDelta): void {
    const block = (this.open[delta.index] ?? '') + delta.reasoning;
    const closed = delta.text.length > 0 || delta.finishReason !== null;
    if (closed && block.length > 0) this.sse.event('reasoning_dispatch', JSON.stringify({ index: delta.index, reasoning_content: block }));
    this.open[delta.index] = closed ? '' : block;
  }
}

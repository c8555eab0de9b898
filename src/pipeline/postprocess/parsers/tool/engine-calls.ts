// Tool calls an engine parsed itself (a text-in bridge in front of vLLM's chat API): its pieces as
// the fold's parse items, so they reach every API as the frontend parsers' calls do. Engines write
// calls one after the other: a call ends when a later one starts, or when the choice finishes.

import type { ToolCallDelta } from '../../../../protocols/index.js';
import { upstreamCallId } from './call-items.js';
import type { ToolParseItem } from './parser.js';

export class EngineToolCalls {
  /** Indices of the calls started and not yet ended. */
  private readonly open = new Set<number>();
  private readonly started = new Set<number>();

  /** One step's pieces; `finishing` ends every open call after them. */
  push(pieces: readonly ToolCallDelta[], finishing: boolean): ToolParseItem[] {
    const items: ToolParseItem[] = [];
    for (const piece of pieces) {
      if (!this.started.has(piece.index)) {
        this.endOpen(items);
        this.started.add(piece.index);
        this.open.add(piece.index);
        items.push({ type: 'call_start', index: piece.index, id: piece.id || upstreamCallId(), name: piece.name ?? '' });
      }
      if (piece.arguments) items.push({ type: 'call_arguments', index: piece.index, fragment: piece.arguments });
    }
    if (finishing) this.endOpen(items);
    return items;
  }

  private endOpen(items: ToolParseItem[]): void {
    for (const index of this.open) items.push({ type: 'call_end', index });
    this.open.clear();
  }
}

// --enable-streaming-tool-dispatch (reference/http.md §8.3): besides the streamed tool-call deltas,
// one `event: tool_call_dispatch` per call carries the whole call once it is complete, for clients
// that start a tool as soon as its call is known rather than assembling fragments. It goes out
// before the chunk holding the call's last fragment, so always before the choice's finish_reason.

import type { ChoiceDelta } from '../../../pipeline/index.js';
import type { SseWriter } from '../sse/index.js';

interface OpenCall {
  id: string;
  name: string;
  arguments: string;
}

export class ToolCallDispatch {
  /** The calls being assembled, by choice index, then call index. */
  private readonly open: OpenCall[][] = [];

  constructor(private readonly sse: SseWriter) {}

  /** Sees each delta before its chunk goes out. */
  before(delta: ChoiceDelta): void {
    const calls = (this.open[delta.index] ??= []);
    for (const piece of delta.toolCalls ?? []) {
      if (piece.id !== undefined) calls[piece.index] = { id: piece.id, name: piece.name ?? '', arguments: '' };
      const call = calls[piece.index];
      if (call) call.arguments += piece.arguments;
    }
    for (const index of delta.toolCallsEnded ?? []) {
      const call = calls[index];
      if (!call) continue;
      const toolCall = { index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
      this.sse.event('tool_call_dispatch', JSON.stringify({ choice_index: delta.index, tool_call: toolCall }));
    }
  }
}

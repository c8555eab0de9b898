// A fold delta's pieces in the order the model wrote them, for the routes that turn them into
// items or blocks in sequence (Responses, Messages). The delta keeps text and tool-call pieces
// apart; within one step, pieces continuing the call already open came before any text, and a
// call that starts in the step came after it.

import type { ChoiceDelta, ToolCallDelta } from '../../pipeline/index.js';

export interface DeltaVisitor {
  reasoning(text: string): void;
  text(text: string): void;
  call(piece: ToolCallDelta): void;
}

/** Visits `delta`'s reasoning, text and call pieces in order; `openCall` is the index of the call open before it. */
export function visitInWrittenOrder(delta: ChoiceDelta, openCall: number | undefined, visit: DeltaVisitor): void {
  if (delta.reasoning.length > 0) visit.reasoning(delta.reasoning);
  const calls = delta.toolCalls ?? [];
  const continuing = calls.length > 0 && calls[0]!.id === undefined && calls[0]!.index === openCall;
  if (continuing) calls.forEach((piece) => visit.call(piece));
  if (delta.text.length > 0) visit.text(delta.text);
  if (!continuing) calls.forEach((piece) => visit.call(piece));
}

// A fold delta's pieces in the order the model wrote them, for the routes that turn them into
// items or blocks in sequence (Responses, Messages). The delta keeps text and tool-call pieces
// apart; within one step, pieces continuing the call already open (and its end) came before any
// text, and a call that starts in the step came after it.

import type { ChoiceDelta, ToolCallDelta } from '../../../pipeline/index.js';

export interface DeltaVisitor {
  reasoning(text: string): void;
  text(text: string): void;
  call(piece: ToolCallDelta): void;
  /** Call `index` is complete; not told on the choice's last delta, whose finish closes what is open. */
  callEnded(index: number): void;
}

/** Visits `delta`'s reasoning, text and call pieces in order; `openCall` is the index of the call open before it. */
export function visitInWrittenOrder(delta: ChoiceDelta, openCall: number | undefined, visit: DeltaVisitor): void {
  if (delta.reasoning.length > 0) visit.reasoning(delta.reasoning);
  const calls = delta.toolCalls ?? [];
  const ended = delta.finishReason === null ? (delta.toolCallsEnded ?? []) : [];
  const first = calls[0];
  const continuing = first === undefined ? openCall !== undefined && ended.includes(openCall) : first.id === undefined && first.index === openCall;
  const visitCalls = (): void => {
    calls.forEach((piece) => visit.call(piece));
    ended.forEach((index) => visit.callEnded(index));
  };
  if (continuing) visitCalls();
  if (delta.text.length > 0) visit.text(delta.text);
  if (!continuing) visitCalls();
}

// The signals of calls that end far more often cleanly than aborted: a client's request (the HTTP
// model route), an engine call the router may stop on its own (a silent worker's), a request a
// worker serves over the request plane. An AbortSignal costs microseconds and kilobytes to make in
// Node 20, once per call on the small requests' path, so a call that ended without an error,
// without being aborted and with no listener left on its signal hands its controller to the next
// call. A call whose signal is still listened to (an engine that never let go of it), was aborted or
// failed keeps its own. The owner hands a controller on only once nothing can abort it or read its
// signal for the call any more.
import { getEventListeners } from 'node:events';

/** Enough for the calls that end in one burst; beyond it, ended calls' controllers are dropped. */
const MAX_SPARE = 256;

const spare: AbortController[] = [];

/** A controller no one listens to and that has not aborted. */
export function callController(): AbortController {
  return spare.pop() ?? new AbortController();
}

/** The call of `controller` is over: its controller serves another call, unless it is still in use. */
export function callEnded(controller: AbortController): void {
  if (spare.length >= MAX_SPARE || controller.signal.aborted || getEventListeners(controller.signal, 'abort').length > 0) return;
  spare.push(controller);
}

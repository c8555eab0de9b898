// The signals of calls that end far more often cleanly than aborted: a client's request (the HTTP
// model route), an engine call the router may stop on its own (a silent worker's), a request a
// worker serves over the request plane. An AbortSignal costs microseconds and kilobytes to make in
// Node 20, once per call on the small requests' path, so a call that ended without an error,
// without being aborted and with nothing left listening to or following its signal hands its
// controller to the next call. A call whose signal is still listened to (an engine that never let
// go of it), was aborted or failed keeps its own. The owner hands a controller on only once nothing
// can abort it or read its signal for the call any more.
import { getEventListeners } from 'node:events';

/** Enough for the calls that end in one burst; beyond it, ended calls' controllers are dropped. */
const MAX_SPARE = 256;

/** What follows a signal: told once it aborts (an EventListenerObject too, for signals made elsewhere). */
export interface AbortFollower {
  handleEvent(): void;
}

/**
 * A call's controller. A call made for it in the same process (the router's engine call for a
 * client's request) follows its signal from a plain list rather than as an event listener: adding
 * and removing one costs more than the rest of the link, on every request. Followers hear the
 * abort after the signal's listeners, as a listener added after them would.
 */
export class CallController extends AbortController {
  readonly followers: AbortFollower[] = [];
  /**
   * Set once something listened to the signal as an event target: only then are its listeners
   * counted when the call ends (counting them costs more than the rest of handing it on).
   */
  listened = false;

  constructor() {
    super();
    owners.set(this.signal, this);
    // Every listener (an `onabort` handler, Node's own helpers) is added through the signal's method.
    this.signal.addEventListener = noticedListener;
  }

  override abort(reason?: unknown): void {
    if (this.signal.aborted) return;
    super.abort(reason);
    // As an event's dispatch: one that stopped following meanwhile is skipped, and one that throws
    // does not keep the others from hearing it (its error is thrown on its own, as a listener's is).
    for (const follower of this.followers.slice()) {
      if (!this.followers.includes(follower)) continue;
      try {
        follower.handleEvent();
      } catch (err) {
        process.nextTick(rethrow, err);
      }
    }
  }
}

function rethrow(err: unknown): never {
  throw err;
}

const owners = new WeakMap<AbortSignal, CallController>();

const addListener = EventTarget.prototype.addEventListener;

/** A call signal's addEventListener: marks its controller as listened to, then adds the listener. */
function noticedListener(this: AbortSignal, ...args: Parameters<EventTarget['addEventListener']>): void {
  const owner = owners.get(this);
  if (owner) owner.listened = true;
  addListener.apply(this, args);
}
const spare: CallController[] = [];

/** A controller no one listens to and that has not aborted. */
export function callController(): CallController {
  return spare.pop() ?? new CallController();
}

/** The call of `controller` is over: its controller serves another call, unless it is still in use. */
export function callEnded(controller: CallController): void {
  const { signal } = controller;
  if (spare.length >= MAX_SPARE || signal.aborted || controller.followers.length > 0) return;
  if (controller.listened && getEventListeners(signal, 'abort').length > 0) return;
  // No listener is left: the next call counts them only if it adds one.
  controller.listened = false;
  spare.push(controller);
}

/** `follower` hears `signal`'s abort (not one that happened already) until it stops following. */
export function followAbort(signal: AbortSignal, follower: AbortFollower): void {
  const owner = owners.get(signal);
  if (owner) owner.followers.push(follower);
  else signal.addEventListener('abort', follower);
}

export function unfollowAbort(signal: AbortSignal, follower: AbortFollower): void {
  const owner = owners.get(signal);
  if (!owner) {
    signal.removeEventListener('abort', follower);
    return;
  }
  const { followers } = owner;
  const at = followers.lastIndexOf(follower);
  // Almost always the last (most often the only) one: popped, without splice's array of what it removed.
  if (at === followers.length - 1) followers.pop();
  else if (at >= 0) followers.splice(at, 1);
}

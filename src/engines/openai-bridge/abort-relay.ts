// A request's abort relay, and how an answer's reader is wired to it, to the consumer and to the body.
import { followAbort, unfollowAbort } from '../../protocols/index.js';
import type { AsyncQueue } from '../../runtime/index.js';
import type { BodyReader, UpstreamReply } from './upstream-connections.js';

/**
 * A request's one follower of the caller's signal (followAbort: a plain list entry on a call
 * signal, else an event listener), for its whole life: an abort goes to the stage running (the call
 * until its head, then the answer). One follower instead of one listener per stage: adding and
 * removing an event listener costs a few µs per request.
 */
export class AbortRelay {
  stage: (() => void) | null = null;

  constructor(readonly signal: AbortSignal) {
    followAbort(signal, this);
  }

  handleEvent(): void {
    this.stage?.();
  }

  /** The request is over: the relay leaves the caller's signal. */
  release(): void {
    this.stage = null;
    unfollowAbort(this.signal, this);
  }
}

/** Reads an answer's body into the request's queue. */
export interface AnswerReader extends BodyReader {
  /** Nothing more is read: the upstream request is aborted. */
  stop(): void;
  /** The caller aborted: the queue ends. */
  readonly onAbort: () => void;
}

/** `reader` takes the answer: the consumer leaving early stops it, an abort goes to it, and the body comes to it. */
export function startReading<T extends {} | null>(reader: AnswerReader, reply: UpstreamReply, queue: AsyncQueue<T>, relay: AbortRelay): void {
  queue.whenClosed((how) => {
    if (how === 'returned') reader.stop();
  });
  relay.stage = reader.onAbort;
  if (relay.signal.aborted) reader.onAbort();
  else reply.read(reader);
}

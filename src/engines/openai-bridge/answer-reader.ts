// How an answer is read: a request's abort relay, the setup both readers share, and their common
// wiring to the relay, to the consumer and to the body (whole-answer.ts, bridge-engine.ts).
import { followAbort, unfollowAbort, type LLMEngineOutput } from '../../protocols/index.js';
import type { AsyncQueue } from '../../runtime/index.js';
import type { BridgeTokenizer, UpstreamInput } from './piece-outputs.js';
import type { BodyReader, UpstreamReply } from './upstream-connections.js';
import type { UpstreamApi } from './upstream-request.js';

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

/** How a request's answer is read, whole or streamed: its API, what its outputs carry, whose it is. */
export interface AnswerSetup {
  api: UpstreamApi;
  input: UpstreamInput;
  tokenizer: BridgeTokenizer;
  baseUrl: string;
}

/** Reads an answer's body into the request's queue (whole-answer.ts, or a stream's events). */
export abstract class AnswerReader implements BodyReader {
  /** The request's queue is settled (or its consumer left): nothing more is done. */
  protected over = false;

  constructor(
    protected readonly reply: UpstreamReply,
    protected readonly queue: AsyncQueue<LLMEngineOutput>,
    protected readonly setup: AnswerSetup,
    protected readonly relay: AbortRelay,
  ) {}

  abstract body(bytes: Buffer): void;
  abstract end(): void;
  abstract lost(err: Error): void;
  /** Nothing more is read: the upstream request is aborted. */
  abstract stop(): void;

  /** Takes the answer: the consumer leaving early stops it, an abort goes to it, and the body comes to it. */
  start(): void {
    this.queue.whenClosed((how) => {
      if (how === 'returned') this.stop();
    });
    this.relay.stage = this.onAbort;
    if (this.relay.signal.aborted) this.onAbort();
    else this.reply.read(this);
  }

  /** The caller aborted: the queue ends. */
  private readonly onAbort = (): void => {
    if (this.over) return;
    this.stop();
    this.queue.end();
  };
}

// When streamed frames are written: SSE streams (frontends/http/sse) and response streams of the
// request plane (runtime/request-plane/call-home-sender.ts). Every stream of the process queues its
// frames here and one callback per event-loop turn writes those that are due, so a busy process
// pays one callback per turn, not one per stream, and a socket write carries many frames instead
// of one (a write costs about as much as the frames it carries: bench/RESULTS.md).
//
// After a write a stream waits at least MIN_HOLD_MS, and while the process stays busy (some stream
// always has frames queued) also TURNS_PER_WRITE event-loop turns, at most MAX_HOLD_MS. An engine
// releases one step per stream per turn at most, so a stream emitting every turn of a busy process
// writes about TURNS_PER_WRITE events at once. A stream's first event goes out at once (nothing
// holds the first token), and any event after a write older than the hold (real token rates, a
// quiet process) on the next turn.

import { PlacedList } from './placed-list.js';

/** A stream the coalescer writes for. */
export interface CoalescedStream {
  /** Kept by the coalescer. */
  readonly lastWrite: LastWrite;
  /** Writes what it has queued. */
  write(): void;
}

/** When a stream last wrote. */
export interface LastWrite {
  at: number;
  turn: number;
  /** The coalescer's idle count then: when it changed, the process was quiet since. */
  idle: number;
  /** The stream's place among those waiting to write; -1 while it is not waiting. */
  slot: number;
}

/** A stream that never wrote: its first write is due at once. */
export function neverWritten(): LastWrite {
  return { at: -Infinity, turn: 0, idle: -1, slot: -1 };
}

const TURNS_PER_WRITE = 10;
const MIN_HOLD_MS = 1;
const MAX_HOLD_MS = 50;
/** Runs in a row with nothing queued that make the process quiet. */
const QUIET_TURNS = 2;

export class WriteCoalescer {
  /** The streams waiting to write, each at its `lastWrite.slot` (placed-list.ts says why not a Set). */
  private readonly waiting = new PlacedList<CoalescedStream>((stream) => stream.lastWrite);
  private immediate: NodeJS.Immediate | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Turns in which the coalescer ran. */
  private turn = 0;
  /** Times the process was quiet: the queue stayed empty for QUIET_TURNS runs. */
  private idle = 0;
  private emptyRuns = 0;
  private readonly runBound = (): void => this.run();

  /** Queues `stream` for its next due write; a stream's first frames go out at once (TTFT). */
  add(stream: CoalescedStream): void {
    if (stream.lastWrite.at === -Infinity) {
      this.writeNow(stream, performance.now());
      return;
    }
    this.waiting.add(stream);
    this.runNextTurn();
  }

  /** Forgets `stream`: it wrote its last frames itself. */
  remove(stream: CoalescedStream): void {
    this.waiting.remove(stream);
  }

  private writeNow(stream: CoalescedStream, now: number): void {
    const last = stream.lastWrite;
    last.at = now;
    last.turn = this.turn;
    last.idle = this.idle;
    stream.write();
  }

  private runNextTurn(): void {
    if (this.immediate) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.immediate = setImmediate(this.runBound);
  }

  private run(): void {
    this.immediate = null;
    this.timer = null;
    this.turn++;
    if (this.waiting.length === 0) {
      // Nothing queued for QUIET_TURNS turns: the process is quiet, and the next event of any
      // stream need not wait for turns.
      if (++this.emptyRuns < QUIET_TURNS) this.immediate = setImmediate(this.runBound);
      else this.idle++;
      return;
    }
    this.emptyRuns = 0;
    const now = performance.now();
    let needsTurns = false;
    let timeDue = Infinity;
    // A stream that writes leaves its place to the last one, looked at next (as are streams queued meanwhile).
    for (let i = 0; i < this.waiting.length; ) {
      const stream = this.waiting.items[i]!;
      const last = stream.lastWrite;
      const waitedTurns = last.idle !== this.idle || this.turn - last.turn >= TURNS_PER_WRITE;
      const waitedMs = now - last.at;
      if ((waitedTurns && waitedMs >= MIN_HOLD_MS) || waitedMs >= MAX_HOLD_MS) {
        this.waiting.removeAt(i);
        this.writeNow(stream, now);
        continue;
      }
      if (!waitedTurns) needsTurns = true;
      else timeDue = Math.min(timeDue, last.at + MIN_HOLD_MS);
      i++;
    }
    // Turns are counted by running each turn (also while checking for quiet); a hold that only
    // lacks time waits on a timer.
    if (needsTurns || this.waiting.length === 0) this.immediate = setImmediate(this.runBound);
    else this.timer = setTimeout(this.runBound, Math.max(0, timeDue - now));
  }
}

/** The process's one coalescer: every SSE stream and response stream shares it. */
export const writeCoalescer = new WriteCoalescer();

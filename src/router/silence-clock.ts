// The silence watchdogs of every routed stream share one timer. A stream that waits for its worker
// enters the time its check is due; the timer, armed for the earliest of them, checks the streams
// due and re-arms for the next. Almost every stream ends long before its bound, so a timer of its
// own (made, linked into Node's timer lists and cleared per request) costs far more than entering
// and leaving a set. A check may run up to SLACK_MS after it was due: a new due time only re-arms
// the timer when it comes that much earlier.

import { PlacedList, type Place } from '../protocols/index.js';

/** A stream whose silence is checked when due; its `slot` is its place among the waiting ones (the clock's to set). */
export interface SilenceCheck extends Place {
  /** `performance.now()` at which the check is due. */
  dueAt: number;
  checkSilence(): void;
}

const SLACK_MS = 5;

class SilenceClock {
  /** The checks waiting (placed-list.ts says why not a Set). */
  private readonly waiting = new PlacedList<SilenceCheck>((check) => check);
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires; Infinity without one. */
  private timerAt = Infinity;

  /** `check` runs once `delayMs` from now (or moves there, when it was waiting already). */
  enter(check: SilenceCheck, delayMs: number): void {
    const dueAt = performance.now() + delayMs;
    check.dueAt = dueAt;
    const wasIdle = this.waiting.length === 0;
    this.waiting.add(check);
    if (dueAt + SLACK_MS < this.timerAt) this.arm(dueAt);
    // The timer keeps the process alive only while a stream waits, as a timer per stream did.
    else if (wasIdle) this.timer?.ref();
  }

  leave(check: SilenceCheck): void {
    if (this.waiting.remove(check) && this.waiting.length === 0) this.timer?.unref();
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.sweep, Math.max(0, at - performance.now()));
  }

  private readonly sweep = (): void => {
    this.timer = null;
    this.timerAt = Infinity;
    const now = performance.now();
    let due: SilenceCheck[] | null = null;
    let nextAt = Infinity;
    for (const check of this.waiting.items) {
      if (check.dueAt <= now) (due ??= []).push(check);
      else if (check.dueAt < nextAt) nextAt = check.dueAt;
    }
    if (due) {
      for (const check of due) this.waiting.remove(check);
      // A check may enter again (the stream keeps waiting): that arms the timer for its new time.
      for (const check of due) check.checkSilence();
    }
    if (nextAt + SLACK_MS < this.timerAt) this.arm(nextAt);
  };
}

/** The process's one clock for silence checks. */
export const silenceClock = new SilenceClock();

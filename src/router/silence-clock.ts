// The silence watchdogs of every routed stream share one timer. A stream that waits for its worker
// enters the time its check is due; the timer, armed for the earliest of them, checks the streams
// due and re-arms for the next. Almost every stream ends long before its bound, so a timer of its
// own (made, linked into Node's timer lists and cleared per request) costs far more than entering
// and leaving a set. A check may run up to SLACK_MS after it was due: a new due time only re-arms
// the timer when it comes that much earlier.
//
// The waiting streams are an array in which each knows its place, not a Set: with the clock's Set
// (as long-lived as the process, its size rising and falling with the streams in flight) ended
// streams, and all their requests held, outlived young GCs and were promoted: ~4.6 MB a scavenge
// and scavenges five times longer on the small requests' path, against ~0.8 MB with the array
// (bench/RESULTS.md). A stream that leaves is no longer referenced from here.

/** A stream whose silence is checked when due. */
export interface SilenceCheck {
  /** `performance.now()` at which the check is due. */
  dueAt: number;
  /** Its place among the waiting checks; -1 while it is not waiting (the clock's to set). */
  clockSlot: number;
  checkSilence(): void;
}

const SLACK_MS = 5;

class SilenceClock {
  private readonly waiting: SilenceCheck[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires; Infinity without one. */
  private timerAt = Infinity;

  /** `check` runs once `delayMs` from now (or moves there, when it was waiting already). */
  enter(check: SilenceCheck, delayMs: number): void {
    const dueAt = performance.now() + delayMs;
    check.dueAt = dueAt;
    const wasIdle = this.waiting.length === 0;
    if (check.clockSlot < 0) check.clockSlot = this.waiting.push(check) - 1;
    if (dueAt + SLACK_MS < this.timerAt) this.arm(dueAt);
    // The timer keeps the process alive only while a stream waits, as a timer per stream did.
    else if (wasIdle) this.timer?.ref();
  }

  leave(check: SilenceCheck): void {
    if (this.remove(check) && this.waiting.length === 0) this.timer?.unref();
  }

  /** Takes `check` out of the waiting ones (the last takes its place); false when it was not waiting. */
  private remove(check: SilenceCheck): boolean {
    const at = check.clockSlot;
    if (at < 0) return false;
    check.clockSlot = -1;
    const last = this.waiting.pop()!;
    if (last !== check) {
      this.waiting[at] = last;
      last.clockSlot = at;
    }
    return true;
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
    for (const check of this.waiting) {
      if (check.dueAt <= now) (due ??= []).push(check);
      else if (check.dueAt < nextAt) nextAt = check.dueAt;
    }
    if (due) {
      for (const check of due) this.remove(check);
      // A check may enter again (the stream keeps waiting): that arms the timer for its new time.
      for (const check of due) check.checkSilence();
    }
    if (nextAt + SLACK_MS < this.timerAt) this.arm(nextAt);
  };
}

/** The process's one clock for silence checks. */
export const silenceClock = new SilenceClock();

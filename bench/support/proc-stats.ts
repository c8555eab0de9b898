// What a server spent, read from Linux's /proc without tracing it: CPU time (every thread, user +
// system) from /proc/<pid>/stat, write-type system calls (write, writev: each socket write of a
// Node server is one) from /proc/<pid>/io and the main thread's voluntary context switches (each
// time the event loop waited for work: fewer per unit of work means more done per wake-up) from
// /proc/<pid>/status, and the time the main thread was ready to run but waited for a CPU (taken by
// another process: on a shared host, a latency tail no code of the server's causes) from
// /proc/<pid>/schedstat, summed over the process and every process below it (a pooled `serve` is
// a primary with its frontend processes as children).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcSnapshot {
  cpuMicros: number;
  writeCalls: number;
  wakeups: number;
  /** The main thread's time runnable but not running (Linux's run delay). */
  cpuWaitMicros: number;
}

/** The unit of /proc's CPU times (`getconf CLK_TCK`; 100 on every Linux this runs on, asked anyway). */
const TICKS_PER_SECOND = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // The process ended between listing and reading: it counts as nothing.
    return fallback;
  }
}

export function procSnapshot(pid: number): ProcSnapshot {
  const stat = readOr(`/proc/${pid}/stat`, '');
  // Fields after the parenthesised command name, which may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = stat ? Number(fields[11]) + Number(fields[12]) : 0;
  const syscw = /syscw:\s*(\d+)/.exec(readOr(`/proc/${pid}/io`, ''));
  const waits = /^voluntary_ctxt_switches:\s*(\d+)/m.exec(readOr(`/proc/${pid}/status`, ''));
  const runDelayNanos = Number(readOr(`/proc/${pid}/schedstat`, '0 0').split(' ')[1]) || 0;
  const own = { cpuMicros: (ticks * 1e6) / TICKS_PER_SECOND, writeCalls: syscw ? Number(syscw[1]) : 0, wakeups: waits ? Number(waits[1]) : 0, cpuWaitMicros: runDelayNanos / 1000 };
  return procChildren(pid).map(procSnapshot).reduce(procSum, own);
}

/** The pids of the processes `pid` started (none once it has ended). */
export function procChildren(pid: number): number[] {
  return readOr(`/proc/${pid}/task/${pid}/children`, '').split(' ').filter(Boolean).map(Number);
}

export function procSum(a: ProcSnapshot, b: ProcSnapshot): ProcSnapshot {
  return { cpuMicros: a.cpuMicros + b.cpuMicros, writeCalls: a.writeCalls + b.writeCalls, wakeups: a.wakeups + b.wakeups, cpuWaitMicros: a.cpuWaitMicros + b.cpuWaitMicros };
}

export function procDelta(from: ProcSnapshot, to: ProcSnapshot): ProcSnapshot {
  return { cpuMicros: to.cpuMicros - from.cpuMicros, writeCalls: to.writeCalls - from.writeCalls, wakeups: to.wakeups - from.wakeups, cpuWaitMicros: to.cpuWaitMicros - from.cpuWaitMicros };
}

/** Nothing spent: the start of a sum. */
export const NO_USE: ProcSnapshot = { cpuMicros: 0, writeCalls: 0, wakeups: 0, cpuWaitMicros: 0 };

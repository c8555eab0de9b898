// What a server spent, read from Linux's /proc without tracing it: CPU time (every thread, in
// nanoseconds, from each thread's /proc/<pid>/task/<tid>/schedstat: /proc/<pid>/stat counts whole
// 10 ms ticks, ±5% of a 150-request TTFT round; a thread that ends between two snapshots takes its
// time with it, which a server's long-lived threads do not), write-type system calls (write,
// writev: each socket write of a Node server is one) from /proc/<pid>/io and the main thread's
// voluntary context switches (each time the event loop waited for work: fewer per unit of work
// means more done per wake-up) from /proc/<pid>/status, and the time the main thread was ready to
// run but waited for a CPU (taken by another process: on a shared host, a latency tail no code of
// the server's causes) from /proc/<pid>/schedstat, summed over the process and every process below
// it (a pooled `serve` is a primary with its frontend processes as children).
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcSnapshot {
  cpuMicros: number;
  writeCalls: number;
  wakeups: number;
  /** The main thread's time runnable but not running (Linux's run delay). */
  cpuWaitMicros: number;
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
  const syscw = /syscw:\s*(\d+)/.exec(readOr(`/proc/${pid}/io`, ''));
  const waits = /^voluntary_ctxt_switches:\s*(\d+)/m.exec(readOr(`/proc/${pid}/status`, ''));
  const runDelayNanos = Number(readOr(`/proc/${pid}/schedstat`, '0 0').split(' ')[1]) || 0;
  const own = { cpuMicros: threadsCpuNanos(pid) / 1000, writeCalls: syscw ? Number(syscw[1]) : 0, wakeups: waits ? Number(waits[1]) : 0, cpuWaitMicros: runDelayNanos / 1000 };
  return procChildren(pid).map(procSnapshot).reduce(procSum, own);
}

/** CPU time of every thread of `pid` (the first schedstat field: nanoseconds on a CPU). */
function threadsCpuNanos(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let nanos = 0;
  for (const tid of tids) nanos += Number(readOr(`/proc/${pid}/task/${tid}/schedstat`, '0').split(' ')[0]) || 0;
  return nanos;
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

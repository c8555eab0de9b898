// What a server process spent, read from Linux's /proc without tracing it: CPU time (every thread,
// user + system) from /proc/<pid>/stat and write-type system calls (write, writev: each socket write
// of a Node server is one) from /proc/<pid>/io.
import { readFileSync } from 'node:fs';

export interface ProcSnapshot {
  cpuMicros: number;
  writeCalls: number;
}

const TICKS_PER_SECOND = 100;

export function procSnapshot(pid: number): ProcSnapshot {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const syscw = /syscw:\s*(\d+)/.exec(io);
  return { cpuMicros: (ticks * 1e6) / TICKS_PER_SECOND, writeCalls: syscw ? Number(syscw[1]) : NaN };
}

export function procDelta(from: ProcSnapshot, to: ProcSnapshot): ProcSnapshot {
  return { cpuMicros: to.cpuMicros - from.cpuMicros, writeCalls: to.writeCalls - from.writeCalls };
}

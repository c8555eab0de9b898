// The JSON log lines (DYN_LOGGING_JSONL=true) of a started process, and waiting for one.
import type { RunningProcess } from './processes.js';

export interface LogLine {
  pid: number;
  msg: string;
  [field: string]: unknown;
}

export function jsonLogLines(proc: RunningProcess): LogLine[] {
  return proc
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** The first line `find` accepts, once logged; fails when the process exits or after `timeoutMs`. */
export async function untilLogLine(proc: RunningProcess, what: string, find: (l: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = jsonLogLines(proc).find(find);
    if (line) return line;
    if (proc.proc.exitCode !== null) throw new Error(`process exited:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} in the log:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

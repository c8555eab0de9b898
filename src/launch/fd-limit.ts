// DYN_FRONTEND_FD_LIMIT_TARGET: as upstream's frontend, raise the soft RLIMIT_NOFILE toward the
// target at startup (each client connection and worker stream holds a descriptor). Node has no
// setrlimit: util-linux `prlimit` sets it on this process, and processes forked later inherit it.
// Never above the hard limit, never lowered, never fatal: what was reached is logged.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from '../observability/index.js';

const run = promisify(execFile);

export interface FdLimitOutcome {
  /** The soft limit before, and after the attempt (null when it could not be read). */
  readonly before: number | null;
  readonly after: number | null;
  readonly hard: number | null;
}

/** `SOFT HARD` as prlimit prints them (`unlimited` for RLIM_INFINITY). */
function parseLimits(text: string): { soft: number; hard: number } | null {
  const [soft, hard] = text.trim().split(/\s+/).map((v) => (v === 'unlimited' ? Number.POSITIVE_INFINITY : Number(v)));
  return soft !== undefined && hard !== undefined && !Number.isNaN(soft) && !Number.isNaN(hard) ? { soft, hard } : null;
}

async function readLimits(pid: number): Promise<{ soft: number; hard: number } | null> {
  const { stdout } = await run('prlimit', ['--pid', String(pid), '--nofile', '--output=SOFT,HARD', '--noheadings', '--raw']);
  return parseLimits(stdout);
}

/** Raises this process's soft open-file limit toward `target`; logs and returns what it achieved. */
export async function raiseFdLimit(target: number, logger: Logger, platform = process.platform): Promise<FdLimitOutcome> {
  if (platform !== 'linux') {
    logger.debug({ target, platform }, 'open-file limit left as it is: raising it is done on Linux only');
    return { before: null, after: null, hard: null };
  }
  try {
    const limits = await readLimits(process.pid);
    if (!limits) throw new Error('unreadable prlimit output');
    const { soft, hard } = limits;
    if (soft >= target) {
      logger.debug({ soft, hard, target }, 'open-file limit already at or above the target');
      return { before: soft, after: soft, hard };
    }
    const wanted = Math.min(target, hard);
    await run('prlimit', ['--pid', String(process.pid), `--nofile=${wanted}:`]);
    const after = (await readLimits(process.pid))?.soft ?? null;
    const log = after !== null && after >= target ? logger.info.bind(logger) : logger.warn.bind(logger);
    log({ before: soft, after, hard, target }, after !== null && after >= target ? 'open-file limit raised' : 'open-file limit raised only up to the hard limit');
    return { before: soft, after, hard };
  } catch (err) {
    logger.warn({ target, err: (err as Error).message }, 'cannot raise the open-file limit (util-linux prlimit needed); continuing with the current one');
    return { before: null, after: null, hard: null };
  }
}

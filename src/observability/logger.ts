import { pino, type Logger } from 'pino';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * The process logger. `DYN_LOG` takes a level (upstream also accepts `module=level` lists; only
 * the first bare level is used here). JSON lines on stderr keep stdout free for program output.
 */
export function createLogger(level: string | undefined, name = 'dynamo-ts'): Logger {
  const bare = (level ?? 'info')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .find((s) => !s.includes('='));
  const resolved = bare === 'warning' ? 'warn' : bare && LEVELS.has(bare) ? bare : 'info';
  return pino({ name, level: resolved }, pino.destination({ fd: 2, sync: false }));
}

export type { Logger };

import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { ignoredFilterWarning, parseLogFilter, type LogFilter, type LogModule } from './log-filter.js';

/** JSON lines for machines, or pino-pretty's readable lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  name?: string;
  format?: LogFormat;
}

/** The filter travels with the logger: pino children inherit it through their prototype. */
const FILTER = Symbol('dynamo-ts log filter');
type Filtered = Logger & { [FILTER]?: LogFilter };

/**
 * `DYN_LOGGING_JSONL` forces the format either way; unset, a terminal on stdout gets readable
 * lines and anything else (a pipe, a file, a container log collector) gets JSON.
 */
export function logFormatFor(jsonl: boolean | undefined, stdoutIsTty: boolean): LogFormat {
  if (jsonl === undefined) return stdoutIsTty ? 'pretty' : 'json';
  return jsonl ? 'json' : 'pretty';
}

/**
 * The process logger, on stderr so stdout stays free for program output. `log` is the `DYN_LOG`
 * filter: a level plus `module=level` pairs, which `moduleLogger` applies.
 */
export function createLogger(log: string | undefined, opts: LoggerOptions = {}): Logger {
  const filter = parseLogFilter(log);
  const options = { name: opts.name ?? 'dynamo-ts', level: filter.level };
  const logger: Filtered =
    opts.format === 'pretty'
      ? // Synchronous so that nothing written before a process.exit is lost.
        pino(options, pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, ignore: 'pid,hostname,module', messageFormat: '{if module}[{module}] {end}{msg}', translateTime: 'UTC:yyyy-mm-dd HH:MM:ss.l"Z"' }))
      : pino(options, pino.destination({ fd: 2, sync: false }));
  logger[FILTER] = filter;
  const warning = ignoredFilterWarning(filter);
  if (warning) logger.warn(warning);
  return logger;
}

/** The child logger of one module, at the level `DYN_LOG` gives that module (else the parent's). */
export function moduleLogger(parent: Logger, module: LogModule): Logger {
  const level = (parent as Filtered)[FILTER]?.modules.get(module);
  return parent.child({ module }, level ? { level } : {});
}

export type { Logger };

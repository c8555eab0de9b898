/**
 * `DYN_LOG` as a filter, adapted from upstream's tracing EnvFilter: a default level plus
 * `module=level` pairs (`info,router=debug`). Upstream targets are Rust paths, so the
 * `dynamo_ts::` (or `dynamo_ts.`) prefix is accepted and dropped.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The modules that log through their own child logger, each with what it covers (documented). */
export const LOG_MODULES = {
  http: 'the HTTP frontend: request errors, server errors, route extensions',
  grpc: 'the KServe gRPC frontend',
  router: 'routing: migration of requests off lost workers, router state snapshots, prefill decisions of disaggregated models (debug)',
  discovery: 'model and worker discovery: models and workers arriving, leaving, marked down',
  runtime: 'the distributed runtime: discovery backends, leases, the request and event planes',
  mocker: 'the mocker engine workers',
  bridge: 'bridge workers: upstream OpenAI-compatible servers registered, withdrawn, their KV events',
} as const;
export type LogModule = keyof typeof LOG_MODULES;

export interface LogFilter {
  readonly level: LogLevel;
  readonly modules: ReadonlyMap<LogModule, LogLevel>;
  /** Parts that were not understood, for one startup warning each. */
  readonly ignored: readonly string[];
}

const MODULE_PREFIX = /^dynamo_ts(?:::|\.)/;

function levelOf(word: string): LogLevel | undefined {
  const w = word.trim().toLowerCase();
  const level = w === 'warning' ? 'warn' : w === 'off' ? 'silent' : w;
  return (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : undefined;
}

export function parseLogFilter(spec: string | undefined): LogFilter {
  let level: LogLevel | undefined;
  const modules = new Map<LogModule, LogLevel>();
  const ignored: string[] = [];
  for (const part of (spec ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
    const eq = part.indexOf('=');
    if (eq < 0) {
      const bare = levelOf(part);
      if (bare && level === undefined) level = bare;
      else ignored.push(part);
      continue;
    }
    const name = part.slice(0, eq).trim().replace(MODULE_PREFIX, '');
    const moduleLevel = levelOf(part.slice(eq + 1));
    if (moduleLevel && Object.hasOwn(LOG_MODULES, name)) modules.set(name as LogModule, moduleLevel);
    else ignored.push(part);
  }
  return { level: level ?? 'info', modules, ignored };
}

/** The startup warning for the parts of `DYN_LOG` that were ignored, or undefined. */
export function ignoredFilterWarning(filter: LogFilter): string | undefined {
  if (filter.ignored.length === 0) return undefined;
  return `DYN_LOG: ignoring ${filter.ignored.map((p) => `'${p}'`).join(', ')} (levels: ${LOG_LEVELS.join(', ')}; modules: ${Object.keys(LOG_MODULES).join(', ')})`;
}

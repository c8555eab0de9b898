// The bench options → the sweep's load points and each run's bounds, refusing combinations that
// would leave the load undefined.
import { ConfigError, type Config } from '../../config/index.js';
import type { LoadPoint } from './schedule.js';

export interface BenchPlan {
  readonly points: readonly LoadPoint[];
  readonly requests: number;
  readonly durationMs: number;
  readonly maxInFlight: number;
}

const DEFAULT_REQUESTS = 100;

export function planBench(config: Config, traceSize?: number): BenchPlan {
  const concurrency = numbers(config.concurrency, '--concurrency');
  const rates = numbers(config.requestRate, '--request-rate');
  if (rates.some((rate) => rate <= 0)) throw new ConfigError(`--request-rate must be greater than 0, got '${config.requestRate}'`);
  const openLoop = rates.length > 0 || config.trace !== undefined;
  if (openLoop && concurrency.length > 1) {
    throw new ConfigError(`--concurrency ${config.concurrency}: with --request-rate or --trace it is one value, the cap on requests in flight`);
  }
  if (config.trace !== undefined && rates.length > 0) throw new ConfigError('--request-rate does not apply to --trace, which sets its own arrival times');
  const points: LoadPoint[] = rates.length > 0
    ? rates.map((requestRate) => ({ requestRate }))
    : config.trace !== undefined ? [{}] : (concurrency.length > 0 ? concurrency : [1]).map((c) => ({ concurrency: c }));
  const bounded = config.requests ?? (config.duration !== undefined ? Infinity : traceSize ?? DEFAULT_REQUESTS);
  return {
    points,
    requests: bounded,
    durationMs: config.duration !== undefined ? config.duration * 1000 : Infinity,
    maxInFlight: openLoop && concurrency.length === 1 ? concurrency[0]! : Infinity,
  };
}

function numbers(list: string | undefined, flag: string): number[] {
  if (list === undefined) return [];
  const values = list.split(',').map(Number);
  if (new Set(values).size !== values.length) throw new ConfigError(`${flag} ${list} repeats a value`);
  return values;
}

// How many frontend processes serve, and which of them serve gRPC (--http-workers, --grpc-workers).
import { availableParallelism } from 'node:os';
import type { Config } from '../../config/index.js';
import { kserveLayout } from '../frontend/index.js';

export interface ProcessPlan {
  /** Frontend processes; 1 runs the frontend in this process, as before. */
  readonly processes: number;
  /** How many of them (the first ones) serve gRPC; 0 without a gRPC listener. */
  readonly grpcProcesses: number;
  /** Why this many, for the startup log. */
  readonly reason: string;
}

/** Where the engines run: in this process (`serve`) or behind a request plane (`frontend`). */
export type PoolShape = 'serve' | 'frontend';

/**
 * The HTTP process count when no flag sets it, from bench/RESULTS.md ("Default pool size"): with the
 * engine in this process, a pool carries every token over loopback TCP from it to the other
 * processes, and one process streamed 3–4× what the pool did; in front of workers, one process beat
 * the pool on two cores, where the workers and the kernel's network work share the cores. Past two
 * cores, one core stays for those and for the pool's primary.
 */
function defaultHttpProcesses(shape: PoolShape, cores: number): { count: number; reason: string } {
  if (shape === 'serve') return { count: 1, reason: 'the engines run in this process; a pool would carry every token to the others over TCP' };
  if (cores <= 2) return { count: 1, reason: `${cores} core(s): one process outruns a pool that shares them with the workers and the network stack` };
  return { count: cores - 1, reason: `${cores} cores: one process per core, one core left for the pool's primary and the network stack` };
}

/**
 * Every process serves HTTP. Beside the HTTP API (--grpc-port), the first `--grpc-workers` of them
 * also serve gRPC; with --kserve-grpc-server gRPC is the API, so `--grpc-workers` counts the
 * processes. The terminal chat (-i) listens on nothing: one process.
 */
export function processPlan(config: Config, shape: PoolShape, cores = availableParallelism()): ProcessPlan {
  if (config.interactive) return { processes: 1, grpcProcesses: 0, reason: 'the terminal chat listens on nothing' };
  const chosen = config.httpWorkers === undefined ? defaultHttpProcesses(shape, cores) : { count: config.httpWorkers, reason: '--http-workers' };
  const http = chosen.count;
  if (!kserveLayout(config)) return { processes: http, grpcProcesses: 0, reason: chosen.reason };
  const grpc = config.grpcWorkers ?? http;
  const reason = config.grpcWorkers === undefined ? chosen.reason : '--grpc-workers';
  if (config.grpcPort === undefined) return { processes: grpc, grpcProcesses: grpc, reason };
  return { processes: Math.max(http, grpc), grpcProcesses: grpc, reason: grpc > http ? reason : chosen.reason };
}

/**
 * The config of pool process `index` (0-based): beside the HTTP API, gRPC only in the first
 * `grpcProcesses`; the RL admin listener (DYN_ENABLE_RL_ENDPOINTS, a port of its own that the
 * primary does not hand over) only in process 0.
 */
export function configOfProcess(config: Config, plan: ProcessPlan, index: number): Config {
  const own = index === 0 || !config.enableRlEndpoints ? config : { ...config, enableRlEndpoints: false };
  if (own.grpcPort === undefined || index < plan.grpcProcesses) return own;
  return { ...own, grpcPort: undefined };
}

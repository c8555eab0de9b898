// How many frontend processes serve, and which of them serve gRPC (--http-workers, --grpc-workers).
import { availableParallelism } from 'node:os';
import type { Config } from '../../config/index.js';
import { kserveLayout } from '../frontend/index.js';

export interface ProcessPlan {
  /** Frontend processes; 1 runs the frontend in this process, as before. */
  readonly processes: number;
  /** How many of them (the first ones) serve gRPC; 0 without a gRPC listener. */
  readonly grpcProcesses: number;
}

/**
 * Every process serves HTTP. Beside the HTTP API (--grpc-port), the first `--grpc-workers` of them
 * also serve gRPC; with --kserve-grpc-server gRPC is the API, so `--grpc-workers` counts the
 * processes. The terminal chat (-i) listens on nothing: one process.
 */
export function processPlan(config: Config, cores = availableParallelism()): ProcessPlan {
  if (config.interactive) return { processes: 1, grpcProcesses: 0 };
  const http = config.httpWorkers ?? cores;
  if (!kserveLayout(config)) return { processes: http, grpcProcesses: 0 };
  const grpc = config.grpcWorkers ?? http;
  if (config.grpcPort === undefined) return { processes: grpc, grpcProcesses: grpc };
  return { processes: Math.max(http, grpc), grpcProcesses: grpc };
}

/** The config of pool process `index` (0-based): beside the HTTP API, gRPC only in the first `grpcProcesses`. */
export function configOfProcess(config: Config, plan: ProcessPlan, index: number): Config {
  if (config.grpcPort === undefined || index < plan.grpcProcesses) return config;
  return { ...config, grpcPort: undefined };
}

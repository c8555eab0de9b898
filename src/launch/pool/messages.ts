// The IPC messages between the primary of a frontend pool and its processes.
import type { Registry } from 'prom-client';
import type { Config } from '../../config/index.js';
import type { ProcessPlan } from './plan.js';

/** Set in the environment of the processes the primary starts (they run the same command line). */
export const POOL_PROCESS_ENV = 'DYNAMO_TS_POOL_PROCESS';

/** The pool's listening sockets: the HTTP service's, and gRPC's when KServe is on. */
export type ListenerName = 'http' | 'grpc';

/** A listening socket a process was started with, idle while the primary hands it connections. */
export interface InheritedListener {
  readonly name: ListenerName;
  /** Its descriptor in the process. */
  readonly fd: number;
}

/**
 * What a process does once its primary is gone: `serve-on` (`frontend`: it accepts on the listening
 * sockets it inherited until SIGTERM) or `stop` (`serve`: the engines ran in the primary and went
 * with it, so it drains and exits).
 */
export type WithoutPrimary = 'serve-on' | 'stop';

/** What one pool process runs: the command's config with these fields replaced. */
export interface ProcessSettings {
  /** 0-based, stable across restarts of the process in this slot. */
  readonly index: number;
  readonly plan: ProcessPlan;
  /** The bound ports among them, so port 0 reads as the port the pool listens on. */
  readonly overrides: Partial<Config>;
  /** Listen only once this model is live with this many workers (`serve`: the primary's own mockers). */
  readonly waitFor?: { readonly model: string; readonly instances: number };
  readonly listeners: readonly InheritedListener[];
  readonly withoutPrimary: WithoutPrimary;
}

/** A registry's metrics as prom-client's getMetricsAsJSON() gives them (plain data, IPC-safe). */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * What the primary gathers from every serving process for the one that asks: each process's part,
 * and the whole the parts make.
 */
export interface Gatherable {
  /** A scrape of any process: every registry (prom-client JSON), combined into one exposition. */
  readonly metrics: { readonly part: MetricsJson; readonly whole: string };
  /** The models the pool serves: a replacement waits for them before it takes connections. */
  readonly models: { readonly part: string[]; readonly whole: string[] };
}

export type GatherKind = keyof Gatherable;

export type ToPrimary =
  | { readonly kind: 'pool:hello' }
  /** A service is unreachable and will be retried: the line, told once for the pool. */
  | { readonly kind: 'pool:retrying'; readonly line: string }
  /** Startup failed with a one-line reason (`stack` for DYN_LOG=debug; `config`: a bad setting, exit 2): told once, the pool stops. */
  | { readonly kind: 'pool:failed'; readonly line: string; readonly stack?: string; readonly config: boolean }
  /** Ready for connections. */
  | { readonly kind: 'pool:serving' }
  | { readonly kind: 'pool:gather-request'; readonly id: number; readonly what: GatherKind }
  | { readonly kind: 'pool:gather-part'; readonly id: number; readonly part: Gatherable[GatherKind]['part'] };

export type ToProcess =
  | { readonly kind: 'pool:settings'; readonly settings: ProcessSettings }
  /** Sent with the accepted socket as its handle. */
  | { readonly kind: 'pool:connection'; readonly listener: ListenerName }
  | { readonly kind: 'pool:gather'; readonly id: number; readonly what: GatherKind }
  | { readonly kind: 'pool:gathered'; readonly id: number; readonly whole: Gatherable[GatherKind]['whole'] };

/** Messages of other senders (prom-client's own, for one) share the channel: recognise ours. */
export function isPoolMessage<M extends { kind: string }>(msg: unknown): msg is M {
  return typeof msg === 'object' && msg !== null && typeof (msg as { kind?: unknown }).kind === 'string' && (msg as { kind: string }).kind.startsWith('pool:');
}

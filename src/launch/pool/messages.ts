// The IPC messages between the primary of a frontend pool and its processes (node:cluster).
import type { Registry } from 'prom-client';
import type { Config } from '../../config/index.js';
import type { ProcessPlan } from './plan.js';

/** What one pool process runs: the command's config with these fields replaced. */
export interface ProcessSettings {
  /** 0-based, stable across restarts of the process in this slot. */
  readonly index: number;
  readonly plan: ProcessPlan;
  readonly overrides: Partial<Config>;
  /** Listen only once this model is live with this many workers (`serve`: the primary's own mockers). */
  readonly waitFor?: { readonly model: string; readonly instances: number };
}

/** A registry's metrics as prom-client's getMetricsAsJSON() gives them (plain data, IPC-safe). */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** A service a process could not reach at startup, as `ServiceUnreachableError` names it (plain data, IPC-safe). */
export interface UnreachableService {
  readonly service: string;
  readonly endpoint: string;
  readonly reason: string;
  readonly fix: string;
}

export type ToPrimary =
  | { readonly kind: 'pool:hello' }
  | { readonly kind: 'pool:unreachable'; readonly unreachable: UnreachableService }
  | { readonly kind: 'pool:listening'; readonly port: number; readonly grpcPort?: number }
  | { readonly kind: 'pool:metrics-request'; readonly id: number }
  | { readonly kind: 'pool:metrics-json'; readonly id: number; readonly metrics: MetricsJson };

export type ToProcess =
  | { readonly kind: 'pool:settings'; readonly settings: ProcessSettings }
  | { readonly kind: 'pool:metrics-collect'; readonly id: number }
  | { readonly kind: 'pool:metrics-text'; readonly id: number; readonly text: string };

/** Messages of other senders (prom-client's own, for one) share the channel: recognise ours. */
export function isPoolMessage<M extends { kind: string }>(msg: unknown): msg is M {
  return typeof msg === 'object' && msg !== null && typeof (msg as { kind?: unknown }).kind === 'string' && (msg as { kind: string }).kind.startsWith('pool:');
}

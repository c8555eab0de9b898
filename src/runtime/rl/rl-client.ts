// The RL admin fan-out, as upstream's `dynamo-rl` SDK does it: snapshot the live `rl` endpoints,
// call each instance directly (strictly that instance: a worker gone is that worker's error, never
// another worker's answer), then snapshot again and refuse the result if the membership changed.
import { randomUUID } from 'node:crypto';
import {
  BadGatewayError,
  ConflictError,
  UnavailableError,
  type RlEnvelope,
  type RlFanout,
  type RlFanoutReport,
  type RlOp,
  type RlWorkerPayload,
  type RlWorkerResult,
} from '../../protocols/index.js';
import type { DiscoveryBackend } from '../discovery/backend.js';
import type { EndpointInstance } from '../discovery/records.js';
import { remoteCall, type RemoteCallLogger } from '../remote-stream.js';
import type { RequestPlaneClient } from '../request-plane/types.js';
import { rlMembership, type RlMembershipScope, type RlMembershipSnapshot } from './rl-membership.js';

export interface RlClientOptions extends RlMembershipScope {
  backend: DiscoveryBackend;
  requestClient: RequestPlaneClient;
  /** How long each worker has to answer. */
  requestTimeoutMs: number;
  /** Fewer live workers than this: the op is refused (upstream: 1). */
  minWorkers?: number;
  logger?: RemoteCallLogger;
}

export class RlClient implements RlFanout {
  constructor(private readonly opts: RlClientOptions) {}

  /** The membership now; a discovery that cannot be read fails the op (502). */
  async snapshot(): Promise<RlMembershipSnapshot> {
    try {
      return await rlMembership(this.opts.backend, this.opts);
    } catch (err) {
      throw new BadGatewayError(`cannot list RL workers: ${(err as Error).message}`);
    }
  }

  async fanout(op: RlOp, body: Record<string, unknown>): Promise<RlFanoutReport> {
    const before = await this.snapshot();
    if (before.targets.length < (this.opts.minWorkers ?? 1)) {
      throw new UnavailableError(`no live RL workers found in namespace '${this.opts.namespace}' for endpoint 'rl'`);
    }
    const envelope: RlEnvelope = { op, body };
    const workers = await Promise.all(before.targets.map((target) => this.call(target, envelope)));
    const after = await this.snapshot();
    if (after.epoch !== before.epoch) {
      throw new ConflictError(`RL worker membership changed during fan-out (before=${before.epoch}, after=${after.epoch})`);
    }
    return { epoch: before.epoch, workers };
  }

  /** One worker's answer: its first item, or why there is none (unreachable, failed, too slow). */
  private async call(target: EndpointInstance, envelope: RlEnvelope): Promise<RlWorkerResult> {
    const abort = new AbortController();
    const ctx = { requestId: `rl-${envelope.op}-${randomUUID()}`, signal: abort.signal, exactIntegers: true };
    const items = remoteCall(this.opts.requestClient, target, envelope, ctx, (data) => data as RlWorkerPayload, this.opts.logger)[Symbol.asyncIterator]();
    const secs = this.opts.requestTimeoutMs / 1000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.opts.requestTimeoutMs)));
    try {
      const first = await Promise.race([items.next(), timedOut]);
      if (first === 'timeout') return { target, error: `dispatch timed out after ${secs}s` };
      if (first.done) return { target, error: 'dispatch failed: empty response stream' };
      return { target, response: first.value };
    } catch (err) {
      return { target, error: `dispatch failed: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
      abort.abort();
      void items.return?.()?.catch(() => undefined);
    }
  }
}

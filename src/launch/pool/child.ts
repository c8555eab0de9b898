// One process of a frontend pool: a whole frontend (its own runtime, model watcher, KV event
// subscriptions and routers) over the settings the primary hands it, listening on the sockets the
// pool shares. Its routers share their active load with their siblings by replica sync.
import cluster from 'node:cluster';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../observability/index.js';
import { ServiceUnreachableError } from '../../protocols/index.js';
import { DistributedRuntime } from '../../runtime/index.js';
import { runFrontend } from '../frontend/index.js';
import type { FrontendServices } from '../frontend/index.js';
import { ModelArrival } from '../../models/index.js';
import { assertRouterStateSupported, frontendEventPlane } from '../router-state.js';
import { runtimeOptionsFromConfig } from '../runtime-options.js';
import { StartupToldError } from '../startup-retry.js';
import { isPoolMessage, type MetricsJson, type ProcessSettings, type ToPrimary, type ToProcess } from './messages.js';
import { configOfProcess } from './plan.js';

/** True in a process the pool's primary forked. */
export function isPoolProcess(): boolean {
  return cluster.isWorker;
}

/** The IPC channel to the primary: settings in, listening out, metrics both ways. */
class PrimaryChannel {
  private readonly waiting = new Map<number, (text: string) => void>();
  private nextId = 0;
  private settingsArrived!: (s: ProcessSettings) => void;
  readonly settings = new Promise<ProcessSettings>((resolve) => (this.settingsArrived = resolve));
  private collect: (() => Promise<MetricsJson>) | null = null;
  private readonly onMessage = (msg: unknown): void => {
    if (isPoolMessage<ToProcess>(msg)) this.handle(msg);
  };

  constructor() {
    process.on('message', this.onMessage);
    // Asked for, not pushed: the primary's answer cannot arrive before this listener exists.
    this.send({ kind: 'pool:hello' });
  }

  send(msg: ToPrimary): void {
    if (process.connected) process.send!(msg);
  }

  /** Hands the primary the service this process could not reach; false when there is no primary to tell. */
  tellUnreachable({ service, endpoint, reason, fix }: ServiceUnreachableError): Promise<boolean> {
    if (!process.connected) return Promise.resolve(false);
    const msg: ToPrimary = { kind: 'pool:unreachable', unreachable: { service, endpoint, reason, fix } };
    // Delivered before this process exits: the primary tells the operator and retries the pool.
    return new Promise((resolve) => process.send!(msg, undefined, {}, (err) => resolve(err === null)));
  }

  /** Every pool process's metrics combined, by way of the primary. */
  pooledMetrics(): Promise<string> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ kind: 'pool:metrics-request', id });
    });
  }

  /** What this process answers when the primary collects metrics. */
  answerMetricsWith(collect: () => Promise<MetricsJson>): void {
    this.collect = collect;
  }

  /** Lets the process exit once its work is done: the channel to the primary no longer holds it. */
  close(): void {
    process.off('message', this.onMessage);
    process.channel?.unref();
    for (const resolve of this.waiting.values()) resolve('');
    this.waiting.clear();
  }

  private handle(msg: ToProcess): void {
    switch (msg.kind) {
      case 'pool:settings':
        this.settingsArrived(msg.settings);
        return;
      case 'pool:metrics-collect':
        void this.collect?.().then((metrics) => this.send({ kind: 'pool:metrics-json', id: msg.id, metrics }));
        return;
      case 'pool:metrics-text':
        this.waiting.get(msg.id)?.(msg.text);
        this.waiting.delete(msg.id);
    }
  }
}

/** Runs this pool process until stopped (SIGTERM from the primary or the terminal). */
export async function runPoolProcess(config: Config, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const channel = new PrimaryChannel();
  const settings = await channel.settings;
  const own: Config = configOfProcess({ ...config, ...settings.overrides }, settings.plan, settings.index);
  const log = logger.child({ frontend_process: settings.index });
  try {
    assertRouterStateSupported(own, frontendEventPlane(own));
    const runtime = await DistributedRuntime.create(runtimeOptionsFromConfig(own, log));
    const arrival = new ModelArrival();
    const { waitFor } = settings;
    const beforeListen = async ({ metrics }: FrontendServices): Promise<void> => {
      metrics.renderThrough(() => channel.pooledMetrics());
      channel.answerMetricsWith(() => metrics.registry.getMetricsAsJSON());
      if (waitFor) await arrival.until(waitFor.model, waitFor.instances);
    };
    const frontend = await runFrontend(own, log, runtime, arrival, beforeListen);
    channel.send({ kind: 'pool:listening', port: frontend.port, grpcPort: frontend.grpc?.grpcPort });
    return {
      async stop() {
        await frontend.stop();
        channel.close();
      },
    };
  } catch (err) {
    // An unreachable service is the primary's to tell (once, not once per process) and to retry.
    const told = err instanceof ServiceUnreachableError && (await channel.tellUnreachable(err));
    channel.close();
    throw told ? new StartupToldError(err.message) : err;
  }
}

// One process of a frontend pool: a whole frontend (its own runtime, model watcher, KV event
// subscriptions and routers) over the settings the primary hands it. It listens on nothing while the
// primary lives: the primary accepts and hands each connection over. Its routers share their active
// load with their siblings by replica sync. It outlives the primary (design-notes "Every core serves").
import type { Socket } from 'node:net';
import { ConfigError, type Config } from '../../config/index.js';
import { ModelArrival } from '../../models/index.js';
import type { Logger } from '../../observability/index.js';
import { DistributedRuntime } from '../../runtime/index.js';
import { runFrontend, type FrontendService } from '../frontend/index.js';
import { assertRouterStateSupported, frontendEventPlane } from '../router-state.js';
import { runtimeOptionsFromConfig } from '../runtime-options.js';
import { startRetrying, StartupFailedError, startupFailureLine, StartupToldError, type StartupRetryOptions } from '../startup-retry.js';
import { ConnectionIntake } from './intake.js';
import { isPoolMessage, POOL_PROCESS_ENV, type ListenerName, type MetricsJson, type ProcessSettings, type ToPrimary, type ToProcess } from './messages.js';
import { configOfProcess } from './plan.js';

/** True in a process the pool's primary started. */
export function isPoolProcess(): boolean {
  return process.env[POOL_PROCESS_ENV] === '1' && process.send !== undefined;
}

interface PendingScrape {
  resolve(text: string): void;
  own(): Promise<string>;
}

/** The IPC channel to the primary: settings and connections in, startup news out, metrics both ways. */
class PrimaryChannel {
  private readonly waiting = new Map<number, PendingScrape>();
  private nextId = 0;
  private settingsArrived!: (s: ProcessSettings) => void;
  readonly settings = new Promise<ProcessSettings>((resolve) => (this.settingsArrived = resolve));
  private collect: (() => Promise<MetricsJson>) | null = null;
  private connections: ((listener: ListenerName, socket: Socket) => void) | null = null;
  private readonly lost = new AbortController();
  /** Aborted when the primary is gone (its channel closed): it never comes back. */
  readonly gone = this.lost.signal;
  private readonly onMessage = (msg: unknown, handle: unknown): void => {
    if (isPoolMessage<ToProcess>(msg)) this.handle(msg, handle);
  };
  private readonly onDisconnect = (): void => {
    this.lost.abort();
    for (const { resolve, own } of this.waiting.values()) void own().then(resolve);
    this.waiting.clear();
  };

  constructor() {
    process.on('message', this.onMessage);
    process.once('disconnect', this.onDisconnect);
    // Asked for, not pushed: the primary's answer cannot arrive before this listener exists.
    this.send({ kind: 'pool:hello' });
  }

  send(msg: ToPrimary): void {
    if (process.connected) process.send!(msg);
  }

  /** Sends `msg` and resolves once it is written (before this process exits); false when there is no primary. */
  deliver(msg: ToPrimary): Promise<boolean> {
    if (!process.connected) return Promise.resolve(false);
    return new Promise((resolve) => process.send!(msg, undefined, {}, (err) => resolve(err === null)));
  }

  /** Every pool process's metrics combined, by way of the primary; this process's own (`own`) once it is gone. */
  pooledMetrics(own: () => Promise<string>): Promise<string> {
    if (!process.connected) return own();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve, own });
      this.send({ kind: 'pool:metrics-request', id });
    });
  }

  /** What this process answers when the primary collects metrics. */
  answerMetricsWith(collect: () => Promise<MetricsJson>): void {
    this.collect = collect;
  }

  /** Where the connections the primary hands over go. */
  takeConnections(take: (listener: ListenerName, socket: Socket) => void): void {
    this.connections = take;
  }

  /** Lets the process exit once its work is done: the channel to the primary no longer holds it. */
  close(): void {
    process.off('message', this.onMessage);
    process.off('disconnect', this.onDisconnect);
    process.channel?.unref();
    for (const { resolve } of this.waiting.values()) resolve('');
    this.waiting.clear();
  }

  private handle(msg: ToProcess, handle: unknown): void {
    switch (msg.kind) {
      case 'pool:settings':
        this.settingsArrived(msg.settings);
        return;
      case 'pool:connection': {
        const socket = handle as Socket;
        if (this.connections) this.connections(msg.listener, socket);
        else socket.destroy();
        return;
      }
      case 'pool:metrics-collect':
        void this.collect?.().then((metrics) => this.send({ kind: 'pool:metrics-json', id: msg.id, metrics }));
        return;
      case 'pool:metrics-text':
        this.waiting.get(msg.id)?.resolve(msg.text);
        this.waiting.delete(msg.id);
    }
  }
}

/** One attempt at this process's frontend: taking connections once its models are in (`waitFor`). */
async function startOnce(config: Config, log: Logger, channel: PrimaryChannel, settings: ProcessSettings): Promise<FrontendService> {
  assertRouterStateSupported(config, frontendEventPlane(config));
  const runtime = await DistributedRuntime.create(runtimeOptionsFromConfig(config, log));
  const arrival = new ModelArrival();
  const { waitFor } = settings;
  return runFrontend(config, log, runtime, {
    observer: arrival,
    takeConnections: true,
    beforeListen: async ({ metrics }) => {
      metrics.renderThrough(() => channel.pooledMetrics(() => metrics.registry.metrics()));
      channel.answerMetricsWith(() => metrics.registry.getMetricsAsJSON());
      if (waitFor) await arrival.until(waitFor.model, waitFor.instances);
    },
  });
}

/** The failure's one line, handed to the primary to tell once for the pool; thrown as is when it has none (a bug: logged whole). */
async function tellFailure(channel: PrimaryChannel, err: unknown): Promise<never> {
  const config = err instanceof ConfigError;
  const line = config ? err.message : startupFailureLine(err);
  if (line === null) throw err;
  if (await channel.deliver({ kind: 'pool:failed', line, stack: (err as Error).stack, config })) throw new StartupToldError(line);
  // No primary to tell: this process says it.
  throw config ? err : new StartupFailedError(line);
}

/**
 * Runs this pool process until stopped (SIGTERM from the primary or the terminal). An unreachable
 * service is retried here, in place, for DYN_CONNECT_RETRY_SECS, the primary telling it once.
 */
export async function runPoolProcess(config: Config, logger: Logger, startup: StartupRetryOptions): Promise<{ stop(): Promise<void>; done: Promise<void> }> {
  const channel = new PrimaryChannel();
  const settings = await channel.settings;
  const own: Config = configOfProcess({ ...config, ...settings.overrides }, settings.plan, settings.index);
  const log = logger.child({ frontend_process: settings.index });
  let frontend: FrontendService;
  try {
    frontend = await startRetrying(() => startOnce(own, log, channel, settings), {
      retrySecs: startup.retrySecs,
      tell: (line) => channel.send({ kind: 'pool:retrying', line }),
      signal: AbortSignal.any([startup.signal, channel.gone]),
    });
  } catch (err) {
    return tellFailure(channel, err).finally(() => channel.close());
  }
  const intake = new ConnectionIntake(frontend.accept!);
  channel.takeConnections((listener, socket) => intake.take(listener, socket));
  channel.send({ kind: 'pool:serving' });
  const done = new Promise<void>((resolve) => {
    const onGone = (): void => {
      if (settings.withoutPrimary === 'stop') {
        log.warn('the pool\'s primary is gone, and the engines it ran with it: draining and exiting');
        resolve();
        return;
      }
      log.warn('the pool\'s primary is gone: this process serves on, accepting on the listening sockets itself; it is not replaced if it dies, /metrics counts it alone; SIGTERM stops it');
      intake.acceptOn(settings.listeners).catch((err: Error) => log.error({ err: err.message }, 'cannot accept on the inherited listening sockets: serving the open connections only'));
    };
    if (channel.gone.aborted) onGone();
    else channel.gone.addEventListener('abort', onGone, { once: true });
  });
  return {
    done,
    async stop() {
      intake.close();
      await frontend.stop();
      channel.close();
    },
  };
}

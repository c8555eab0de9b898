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
import {
  isPoolMessage,
  POOL_PROCESS_ENV,
  type Gatherable,
  type GatherKind,
  type ListenerName,
  type ProcessSettings,
  type ToPrimary,
  type ToProcess,
} from './messages.js';
import { configOfProcess } from './plan.js';

/** True in a process the pool's primary started. */
export function isPoolProcess(): boolean {
  return process.env[POOL_PROCESS_ENV] === '1' && process.send !== undefined;
}

/** A gathering asked of the primary: its answer, or this process's own part (`alone`) when there is no primary. */
interface PendingGather {
  resolve(whole: unknown): void;
  alone(): Promise<unknown>;
}

type Part<K extends GatherKind> = () => Promise<Gatherable[K]['part']>;

/** A replacement waits this long at most for the models the other processes serve. */
const SIBLING_MODELS_WAIT_MS = 30_000;

/** The IPC channel to the primary: settings and connections in, startup news out, gatherings both ways. */
class PrimaryChannel {
  private readonly waiting = new Map<number, PendingGather>();
  private nextId = 0;
  private settingsArrived!: (s: ProcessSettings) => void;
  readonly settings = new Promise<ProcessSettings>((resolve) => (this.settingsArrived = resolve));
  private readonly parts: { [K in GatherKind]?: Part<K> } = {};
  private connections: ((listener: ListenerName, socket: Socket) => void) | null = null;
  private readonly lost = new AbortController();
  /** Aborted when the primary is gone (its channel closed): it never comes back. */
  readonly gone = this.lost.signal;
  private readonly onMessage = (msg: unknown, handle: unknown): void => {
    if (isPoolMessage<ToProcess>(msg)) this.handle(msg, handle);
  };
  private readonly onDisconnect = (): void => {
    this.lost.abort();
    this.settleAlone();
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

  /** What every serving process has of `what`, combined by way of the primary; `alone` (this process's own) once it is gone. */
  gather<K extends GatherKind>(what: K, alone: () => Promise<Gatherable[K]['whole']>): Promise<Gatherable[K]['whole']> {
    if (!process.connected) return alone();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve: resolve as (whole: unknown) => void, alone });
      this.send({ kind: 'pool:gather-request', id, what });
    });
  }

  /** This process's part when the primary gathers `what`. */
  answer<K extends GatherKind>(what: K, part: Part<K>): void {
    (this.parts as Record<K, Part<K>>)[what] = part;
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
    this.settleAlone();
  }

  private settleAlone(): void {
    for (const { resolve, alone } of this.waiting.values()) void alone().then(resolve);
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
        else socket.resetAndDestroy();
        return;
      }
      case 'pool:gather':
        void this.parts[msg.what]?.().then((part) => this.send({ kind: 'pool:gather-part', id: msg.id, part }));
        return;
      case 'pool:gathered':
        this.waiting.get(msg.id)?.resolve(msg.whole);
        this.waiting.delete(msg.id);
    }
  }
}

/**
 * Until the models the serving processes serve are live here too (bounded), so a process that
 * replaces one answers 404 for none of them; the first processes of a pool find none to wait for.
 */
async function untilSiblingsModels(channel: PrimaryChannel, arrival: ModelArrival, log: Logger): Promise<void> {
  const names = await channel.gather('models', async () => []);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), SIBLING_MODELS_WAIT_MS)));
  const arrived = (async () => {
    // A model whose card this process rejects is not waited for: it will not come.
    for (const name of names) await arrival.until(name, 1).catch(() => undefined);
    return true;
  })();
  const allArrived = await Promise.race([arrived, waited]);
  clearTimeout(timer);
  if (!allArrived) {
    const missing = names.filter((name) => !arrival.liveNames().includes(name));
    log.warn({ models: missing }, 'taking connections before every model the other frontend processes serve is live here');
  }
}

/** One attempt at this process's frontend: taking connections once its models are in. */
async function startOnce(config: Config, log: Logger, channel: PrimaryChannel, settings: ProcessSettings): Promise<{ frontend: FrontendService; arrival: ModelArrival }> {
  assertRouterStateSupported(config, frontendEventPlane(config));
  const runtime = await DistributedRuntime.create(runtimeOptionsFromConfig(config, log));
  const arrival = new ModelArrival();
  const { waitFor } = settings;
  const frontend = await runFrontend(config, log, runtime, {
    observer: arrival,
    takeConnections: true,
    beforeListen: async ({ metrics }) => {
      channel.answer('metrics', () => metrics.registry.getMetricsAsJSON());
      metrics.renderThrough(() => channel.gather('metrics', () => metrics.registry.metrics()));
      // `serve`: the primary's own workers; `frontend`: whatever the other processes serve.
      if (waitFor) await arrival.until(waitFor.model, waitFor.instances);
      else await untilSiblingsModels(channel, arrival, log);
    },
  });
  return { frontend, arrival };
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
  let started: Awaited<ReturnType<typeof startOnce>>;
  try {
    started = await startRetrying(() => startOnce(own, log, channel, settings), {
      retrySecs: startup.retrySecs,
      tell: (line) => channel.send({ kind: 'pool:retrying', line }),
      signal: AbortSignal.any([startup.signal, channel.gone]),
    });
  } catch (err) {
    return tellFailure(channel, err).finally(() => channel.close());
  }
  const { frontend, arrival } = started;
  const intake = new ConnectionIntake(frontend.accept!);
  channel.takeConnections((listener, socket) => intake.take(listener, socket));
  channel.answer('models', async () => arrival.liveNames());
  channel.send({ kind: 'pool:serving' });
  const done = new Promise<void>((resolve) => {
    const onGone = (): void => {
      if (settings.withoutPrimary === 'stop') {
        log.warn("the pool's primary is gone, and the engines it ran with it: draining and exiting");
        resolve();
        return;
      }
      log.warn("the pool's primary is gone: this process serves on, accepting on the listening sockets itself; it is not replaced if it dies, /metrics counts it alone; SIGTERM stops it");
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

// The primary of a frontend pool: it holds the listening sockets, starts N processes (each inherits
// them, idle), hands each its settings, waits until every one serves, hands them the connections it
// accepts (dispatch.ts), replaces a process that dies, gathers for one process what all of them
// have (/metrics for the one scraped, the models for a replacement), and on stop drains them all
// (SIGTERM each, as an orchestrator would).
import { fork, type ChildProcess } from 'node:child_process';
import { ConfigError } from '../../config/index.js';
import type { Logger } from '../../observability/index.js';
import { StartupFailedError, type StartupRetryOptions } from '../startup-retry.js';
import { ConnectionDispatch } from './dispatch.js';
import { closeListeners, type PoolListener } from './listeners.js';
import {
  isPoolMessage,
  POOL_PROCESS_ENV,
  type Gatherable,
  type GatherKind,
  type InheritedListener,
  type ProcessSettings,
  type ToPrimary,
  type ToProcess,
} from './messages.js';
import { aggregateMetrics, type MetricsAggregators } from './metrics.js';

export interface FrontendPoolOptions {
  readonly processes: number;
  readonly settingsOf: (index: number) => Omit<ProcessSettings, 'listeners'>;
  /** Open, and the pool's from now on: closed once its processes have stopped. */
  readonly listeners: readonly PoolListener[];
  readonly logger: Logger;
  /** How the processes' metrics combine on a scrape. */
  readonly aggregators: MetricsAggregators;
  /** A process still running this long after SIGTERM is killed (its drain has a deadline of its own). */
  readonly stopGraceMs: number;
  /** Environment variables the processes start with on top of the primary's (malloc settings). */
  readonly env?: Readonly<Record<string, string>>;
  /** Where a process's first retried failure is told, and the shutdown signal that ends the startup. */
  readonly startup: StartupRetryOptions;
}

interface Slot {
  readonly index: number;
  child: ChildProcess;
  startedAt: number;
  serving: boolean;
  /** Wait before the next restart of this slot: grows while the process keeps dying young. */
  restartDelayMs: number;
}

/** A process that lived this long before dying is restarted at once; a younger one with a growing delay. */
const HEALTHY_LIFETIME_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that does not answer a gathering within this is left out of it. */
const GATHER_MS = 2_000;
/** A process's first inherited descriptor: after stdin, stdout, stderr and the IPC channel. */
const FIRST_INHERITED_FD = 4;

interface Gathering {
  readonly pending: Set<ChildProcess>;
  readonly parts: unknown[];
  done(): void;
}

type Combine<K extends GatherKind> = (parts: Gatherable[K]['part'][]) => Promise<Gatherable[K]['whole']>;

export class FrontendPool {
  private readonly slots: Slot[] = [];
  private readonly gatherings = new Map<number, Gathering>();
  private readonly dispatch: ConnectionDispatch;
  private nextGathering = 0;
  /** How each kind of gathered part makes its whole. */
  private readonly combine: { readonly [K in GatherKind]: Combine<K> } = {
    metrics: (parts) =>
      aggregateMetrics(parts, this.opts.aggregators).catch((err: Error) => {
        this.opts.logger.error({ err: err.message }, 'cannot aggregate the metrics of the frontend processes');
        return '';
      }),
    models: async (parts) => [...new Set(parts.flat())].sort(),
  };
  private stopping = false;
  /** A shutdown signal came during startup: the processes were told to stop too. */
  private aborted = false;
  private startup: { resolve(): void; reject(err: Error): void } | null = null;
  private toldRetrying = false;
  private readonly restarts = new Set<NodeJS.Timeout>();
  private unservedSince = 0;

  private constructor(private readonly opts: FrontendPoolOptions) {
    this.dispatch = new ConnectionDispatch((listener) => this.onUnserved(listener));
    for (const { name, server } of opts.listeners) {
      server.on('connection', (socket) => {
        // Never read here; a reset before the hand-over is the client's business.
        socket.on('error', () => undefined);
        this.dispatch.dispatch(name, socket);
      });
    }
  }

  /** Starts every process; resolves once all of them serve, rejects (with all stopped) if one fails first. */
  static async start(opts: FrontendPoolOptions): Promise<FrontendPool> {
    const pool = new FrontendPool(opts);
    const allServing = new Promise<void>((resolve, reject) => (pool.startup = { resolve, reject }));
    const onShutdown = (): void => pool.abortStartup();
    opts.startup.signal.addEventListener('abort', onShutdown, { once: true });
    for (let index = 0; index < opts.processes; index++) pool.slots.push(pool.fork(index, FIRST_RESTART_DELAY_MS));
    try {
      await allServing;
    } catch (err) {
      await pool.stop();
      throw err;
    } finally {
      opts.startup.signal.removeEventListener('abort', onShutdown);
    }
    return pool;
  }

  /** The HTTP port the pool listens on. */
  get port(): number {
    return this.opts.listeners.find((l) => l.name === 'http')!.port;
  }

  /** The pids of the current processes, by slot. */
  get pids(): number[] {
    return this.slots.map((s) => s.child.pid!);
  }

  /** SIGTERM to every process (each drains its requests, still handed new connections to refuse as a draining frontend does), then the listeners close. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    await Promise.all(this.slots.map(({ child }) => this.terminate(child)));
    closeListeners(this.opts.listeners);
  }

  private fork(index: number, restartDelayMs: number): Slot {
    const inherited = this.opts.listeners.filter((l) => l.servedBy(index) && l.fd !== undefined);
    const child = fork(process.argv[1]!, process.argv.slice(2), {
      execArgv: process.execArgv,
      env: { ...process.env, ...this.opts.env, [POOL_PROCESS_ENV]: '1' },
      stdio: ['inherit', 'inherit', 'inherit', 'ipc', ...inherited.map((l) => l.fd!)],
    });
    const slot: Slot = { index, child, startedAt: Date.now(), serving: false, restartDelayMs };
    const listeners: InheritedListener[] = inherited.map((l, i) => ({ name: l.name, fd: FIRST_INHERITED_FD + i }));
    child.on('message', (msg: unknown) => {
      if (isPoolMessage<ToPrimary>(msg)) this.onMessage(slot, child, msg, listeners);
    });
    // A send racing the process's exit fails here; the exit itself is handled on 'close'.
    child.on('error', (err) => this.opts.logger.debug({ slot: index, err: err.message }, 'frontend process channel error'));
    child.on('disconnect', () => this.dispatch.remove(child));
    // 'close' comes after the exit and after every message of the process was read.
    child.on('close', (code, signal) => this.onExit(slot, child, code, signal));
    return slot;
  }

  private onMessage(slot: Slot, child: ChildProcess, msg: ToPrimary, listeners: InheritedListener[]): void {
    switch (msg.kind) {
      case 'pool:hello':
        send(child, { kind: 'pool:settings', settings: { ...this.opts.settingsOf(slot.index), listeners } });
        return;
      case 'pool:retrying':
        this.onRetrying(slot, msg.line);
        return;
      case 'pool:failed':
        this.onFailed(slot, msg);
        return;
      case 'pool:serving':
        this.onServing(slot, child);
        return;
      case 'pool:gather-request':
        void this.gather(msg.what).then((whole) => send(child, { kind: 'pool:gathered', id: msg.id, whole }));
        return;
      case 'pool:gather-part':
        this.onPart(child, msg.id, msg.part);
    }
  }

  /** Told once for the pool while it starts (every process meets the same service); later, a replacement's is logged. */
  private onRetrying(slot: Slot, line: string): void {
    if (this.stopping) return;
    if (!this.startup) {
      this.opts.logger.warn({ slot: slot.index, processPid: slot.child.pid }, `frontend process starting: ${line}`);
      return;
    }
    if (this.toldRetrying) return;
    this.toldRetrying = true;
    this.opts.startup.tell(line);
  }

  private onFailed(slot: Slot, { line, stack, config }: Extract<ToPrimary, { kind: 'pool:failed' }>): void {
    // Stopping after a failed startup: its siblings' failures say nothing new.
    if (this.stopping) return;
    if (!this.startup) {
      this.opts.logger.error({ slot: slot.index, processPid: slot.child.pid }, `frontend process failed to start: ${line}`);
      return;
    }
    const err = config ? new ConfigError(line) : new StartupFailedError(line);
    if (stack) err.stack = stack;
    this.failStartup(err);
  }

  private onServing(slot: Slot, child: ChildProcess): void {
    const replaced = !this.startup && !slot.serving;
    slot.serving = true;
    this.dispatch.add(child, this.opts.listeners.filter((l) => l.servedBy(slot.index)).map((l) => l.name));
    if (this.unservedSince) {
      this.opts.logger.info({ slot: slot.index, unservedMs: Date.now() - this.unservedSince }, 'a frontend process serves again: connections are handed over');
      this.unservedSince = 0;
    }
    if (replaced) this.opts.logger.info({ slot: slot.index, processPid: child.pid, port: this.port }, 'frontend process replaced and listening');
    if (this.startup && this.slots.length === this.opts.processes && this.slots.every((s) => s.serving)) {
      this.startup.resolve();
      this.startup = null;
    }
  }

  /** No process serves a listener: its connections are closed at once (the client sees it) rather than held; said once per outage. */
  private onUnserved(listener: string): void {
    // While starting, nothing served yet: as a single process not yet listening refuses connections.
    if (this.unservedSince || this.stopping || this.startup) return;
    this.unservedSince = Date.now();
    this.opts.logger.warn({ listener }, 'no frontend process serves: new connections are closed until one does');
  }

  /** The first failure of a process ends the pool's startup; later ones (its siblings, the same cause) say nothing new. */
  private failStartup(err: Error): void {
    this.startup?.reject(err);
    this.startup = null;
  }

  /** A shutdown signal while starting: the processes stop too (one retrying gives up and says why); the startup ends as theirs does. */
  private abortStartup(): void {
    if (!this.startup) return;
    this.aborted = true;
    for (const { child } of this.slots) child.kill('SIGTERM');
  }

  private onExit(slot: Slot, child: ChildProcess, code: number | null, signal: string | null): void {
    this.dispatch.remove(child);
    for (const gathering of this.gatherings.values()) {
      if (gathering.pending.delete(child) && gathering.pending.size === 0) gathering.done();
    }
    if (this.stopping || slot.child !== child) return;
    const pid = child.pid;
    if (this.startup) {
      // After a shutdown signal, a process that served has simply stopped.
      if (this.aborted && slot.serving) return;
      this.failStartup(new StartupFailedError(`frontend process ${slot.index} (pid ${pid}) exited during startup (code ${code ?? 'none'}, signal ${signal ?? 'none'}); its log says why`));
      return;
    }
    // Stopped by the shutdown signal: the pool's stop follows.
    if (this.aborted) return;
    const lived = Date.now() - slot.startedAt;
    const delay = lived >= HEALTHY_LIFETIME_MS ? FIRST_RESTART_DELAY_MS : slot.restartDelayMs;
    this.opts.logger.error({ slot: slot.index, processPid: pid, code, signal, restartInMs: delay }, 'frontend process exited: starting another');
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      if (this.stopping) return;
      this.slots[slot.index] = this.fork(slot.index, Math.min(delay * 2, MAX_RESTART_DELAY_MS));
    }, delay);
    this.restarts.add(timer);
  }

  private terminate(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), this.opts.stopGraceMs);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      // A process the aborted startup already told to stop is draining: a second SIGTERM would cut it short.
      if (!child.killed) child.kill('SIGTERM');
    });
  }

  /** Every serving process's part of `what`, combined. */
  private gather<K extends GatherKind>(what: K): Promise<Gatherable[K]['whole']> {
    const id = this.nextGathering++;
    const children = this.slots.filter((s) => s.serving && s.child.connected).map((s) => s.child);
    return new Promise((resolve) => {
      const parts: Gatherable[K]['part'][] = [];
      const timer = setTimeout(() => gathering.done(), GATHER_MS);
      const gathering: Gathering = {
        pending: new Set(children),
        parts,
        done: () => {
          clearTimeout(timer);
          this.gatherings.delete(id);
          void (this.combine[what] as Combine<K>)(parts).then(resolve);
        },
      };
      this.gatherings.set(id, gathering);
      for (const child of children) send(child, { kind: 'pool:gather', id, what });
      if (children.length === 0) gathering.done();
    });
  }

  private onPart(child: ChildProcess, id: number, part: unknown): void {
    const gathering = this.gatherings.get(id);
    if (!gathering || !gathering.pending.delete(child)) return;
    gathering.parts.push(part);
    if (gathering.pending.size === 0) gathering.done();
  }
}

/** A process that went away meanwhile is simply not told. */
function send(child: ChildProcess, msg: ToProcess): void {
  if (child.connected) child.send(msg);
}

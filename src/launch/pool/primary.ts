// The primary of a frontend pool: N processes (node:cluster) sharing the HTTP and gRPC listening
// sockets. It forks them, hands each its settings, waits until every one listens, replaces a
// process that dies, gathers /metrics from all of them for whichever one is scraped, and on stop
// drains them all (SIGTERM each, as an orchestrator would).
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../../observability/index.js';
import { ServiceUnreachableError } from '../../protocols/index.js';
import { StartupFailedError } from '../startup-retry.js';
import { isPoolMessage, type MetricsJson, type ProcessSettings, type ToPrimary, type ToProcess } from './messages.js';
import { aggregateMetrics, type MetricsAggregators } from './metrics.js';

export interface FrontendPoolOptions {
  readonly processes: number;
  readonly settingsOf: (index: number) => ProcessSettings;
  readonly logger: Logger;
  /** How the processes' metrics combine on a scrape. */
  readonly aggregators: MetricsAggregators;
  /** A process still running this long after SIGTERM is killed (its drain has a deadline of its own). */
  readonly stopGraceMs: number;
  /** Environment variables the processes start with on top of the primary's (malloc settings). */
  readonly env?: Readonly<Record<string, string>>;
}

interface Slot {
  readonly index: number;
  worker: Worker;
  startedAt: number;
  listening: boolean;
  /** Wait before the next restart of this slot: grows while the process keeps dying young. */
  restartDelayMs: number;
}

/** A process that lived this long before dying is restarted at once; a younger one with a growing delay. */
const HEALTHY_LIFETIME_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that does not answer a metrics collection within this is left out of the scrape. */
const METRICS_COLLECT_MS = 2_000;

interface Collection {
  readonly pending: Set<Worker>;
  readonly gathered: MetricsJson[];
  done(): void;
}

export class FrontendPool {
  private readonly slots: Slot[] = [];
  private readonly collections = new Map<number, Collection>();
  private nextCollection = 0;
  private stopping = false;
  private startup: { resolve(): void; reject(err: Error): void } | null = null;
  private readonly restarts = new Set<NodeJS.Timeout>();
  private boundPort = 0;

  private constructor(private readonly opts: FrontendPoolOptions) {}

  /** Forks every process; resolves once all of them listen, rejects (with all stopped) if one dies first. */
  static async start(opts: FrontendPoolOptions): Promise<FrontendPool> {
    const pool = new FrontendPool(opts);
    const allListening = new Promise<void>((resolve, reject) => (pool.startup = { resolve, reject }));
    for (let index = 0; index < opts.processes; index++) pool.slots.push(pool.fork(index, FIRST_RESTART_DELAY_MS));
    try {
      await allListening;
    } catch (err) {
      await pool.stop();
      throw err;
    }
    return pool;
  }

  /** The HTTP port the processes share (the bound one with port 0). */
  get port(): number {
    return this.boundPort;
  }

  /** The pids of the current processes, by slot. */
  get pids(): number[] {
    return this.slots.map((s) => s.worker.process.pid!);
  }

  /** SIGTERM to every process (each drains its requests), then waits for all of them to exit. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    await Promise.all(this.slots.map(({ worker }) => this.terminate(worker)));
  }

  private fork(index: number, restartDelayMs: number): Slot {
    const worker = cluster.fork(this.opts.env);
    const slot: Slot = { index, worker, startedAt: Date.now(), listening: false, restartDelayMs };
    worker.on('message', (msg: unknown) => {
      if (isPoolMessage<ToPrimary>(msg)) this.onMessage(slot, worker, msg);
    });
    worker.on('exit', (code, signal) => this.onExit(slot, worker, code, signal));
    return slot;
  }

  private onMessage(slot: Slot, worker: Worker, msg: ToPrimary): void {
    switch (msg.kind) {
      case 'pool:hello':
        send(worker, { kind: 'pool:settings', settings: this.opts.settingsOf(slot.index) });
        return;
      case 'pool:unreachable': {
        const { service, endpoint, reason, fix } = msg.unreachable;
        this.failStartup(new ServiceUnreachableError(service, endpoint, reason, fix));
        return;
      }
      case 'pool:listening':
        this.onListening(slot, msg.port);
        return;
      case 'pool:metrics-request':
        void this.gatherMetrics().then((text) => send(worker, { kind: 'pool:metrics-text', id: msg.id, text }));
        return;
      case 'pool:metrics-json':
        this.onMetrics(worker, msg.id, msg.metrics);
    }
  }

  private onListening(slot: Slot, port: number): void {
    const restarted = slot.listening === false && this.startup === null;
    slot.listening = true;
    this.boundPort = port;
    if (restarted) this.opts.logger.info({ slot: slot.index, processPid: slot.worker.process.pid, port }, 'frontend process replaced and listening');
    if (this.startup && this.slots.length === this.opts.processes && this.slots.every((s) => s.listening)) {
      this.startup.resolve();
      this.startup = null;
    }
  }

  /** The first failure of a process ends the pool's startup; later ones (its siblings, the same cause) say nothing new. */
  private failStartup(err: Error): void {
    this.startup?.reject(err);
    this.startup = null;
  }

  private onExit(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    for (const collection of this.collections.values()) {
      if (collection.pending.delete(worker) && collection.pending.size === 0) collection.done();
    }
    if (this.stopping || slot.worker !== worker) return;
    const pid = worker.process.pid;
    if (this.startup) {
      this.failStartup(new StartupFailedError(`frontend process ${slot.index} (pid ${pid}) exited during startup (code ${code ?? 'none'}, signal ${signal ?? 'none'}); its log says why`));
      return;
    }
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

  private terminate(worker: Worker): Promise<void> {
    if (worker.isDead()) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => worker.process.kill('SIGKILL'), this.opts.stopGraceMs);
      worker.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      worker.process.kill('SIGTERM');
    });
  }

  /** Every listening process's own metrics, combined (prom-client's cluster aggregation). */
  private gatherMetrics(): Promise<string> {
    const id = this.nextCollection++;
    const workers = this.slots.filter((s) => s.listening && !s.worker.isDead()).map((s) => s.worker);
    return new Promise((resolve) => {
      const gathered: MetricsJson[] = [];
      const timer = setTimeout(() => collection.done(), METRICS_COLLECT_MS);
      const collection: Collection = {
        pending: new Set(workers),
        gathered,
        done: () => {
          clearTimeout(timer);
          this.collections.delete(id);
          aggregateMetrics(gathered, this.opts.aggregators).then(resolve, (err: Error) => {
            this.opts.logger.error({ err: err.message }, 'cannot aggregate the metrics of the frontend processes');
            resolve('');
          });
        },
      };
      this.collections.set(id, collection);
      for (const worker of workers) send(worker, { kind: 'pool:metrics-collect', id });
      if (workers.length === 0) collection.done();
    });
  }

  private onMetrics(worker: Worker, id: number, metrics: MetricsJson): void {
    const collection = this.collections.get(id);
    if (!collection || !collection.pending.delete(worker)) return;
    collection.gathered.push(metrics);
    if (collection.pending.size === 0) collection.done();
  }
}

/** A process that went away meanwhile is simply not told. */
function send(worker: Worker, msg: ToProcess): void {
  if (worker.isConnected()) worker.send(msg);
}

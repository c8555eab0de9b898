// A light client that pings a cheap route (GET /health, one at a time, keep-alive) on a thread of
// its own, so that what the bench does on its own event loop (building a 40 MB body, writing it,
// collecting its garbage) is not counted as a wait behind the server. `take` reports the pings
// since the last `take`; a ping already in flight at a `take` is left out of both periods.
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** The worst and the 99th-percentile ping of one period, in ms. */
export interface PingSummary {
  worst: number;
  p99: number;
  count: number;
}

function summarize(samples: number[]): PingSummary {
  const sorted = samples.sort((a, b) => a - b);
  return {
    worst: sorted[sorted.length - 1] ?? 0,
    p99: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0,
    count: sorted.length,
  };
}

async function pingForever(port: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let samples: number[] = [];
  let period = 0;
  let running = true;
  parentPort!.on('message', (message: 'take' | 'stop') => {
    if (message === 'stop') running = false;
    else {
      parentPort!.postMessage(summarize(samples));
      samples = [];
      period++;
    }
  });
  const ping = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/health', agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
    });
  while (running) {
    const started = performance.now();
    const startedIn = period;
    await ping();
    if (startedIn === period) samples.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 2));
  }
  agent.destroy();
  parentPort!.close();
}

export class PingThread {
  private readonly worker: Worker;
  private readonly ended: Promise<unknown>;

  constructor(port: number) {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { port } });
    this.ended = new Promise((resolve) => this.worker.once('exit', resolve));
  }

  /** The pings since the last call. */
  take(): Promise<PingSummary> {
    return new Promise((resolve) => {
      this.worker.once('message', resolve);
      this.worker.postMessage('take');
    });
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await this.ended;
  }
}

if (!isMainThread && (workerData as { port?: number } | null)?.port !== undefined) void pingForever((workerData as { port: number }).port);

// One worker thread that runs jobs off the event loop, in order, for work that would hold every
// other client (a long chat template, the parse of a huge body). The thread starts on first use and
// ends after a quiet spell, so the heap a huge job grew goes back to the system. Jobs and results
// cross by structured clone; a job's typed error comes back as the same kind and message.

import { parentPort, Worker } from 'node:worker_threads';
import { DynamoError, isDynamoError, type ErrorKind } from '../protocols/index.js';

interface JobMessage<Job> {
  id: number;
  job: Job;
}

interface ResultMessage<Result> {
  id: number;
  result?: Result;
  error?: { message: string; kind?: ErrorKind };
}

interface Pending<Result> {
  resolve(result: Result): void;
  reject(err: Error): void;
}

export class JobThread<Job, Result> {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending<Result>>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  /** `body` is the worker module, which calls `serveJobs`; idle for `idleEndMs`, the thread ends. */
  constructor(private readonly body: URL, private readonly idleEndMs = 5000) {}

  /** Whether a thread is up (it ends after the idle spell without work). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** `transfer` lists buffers the job hands over rather than copies (they are unusable after). */
  run(job: Job, transfer: ArrayBuffer[] = []): Promise<Result> {
    const worker = this.started();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held while it has work, so a job in flight keeps a quiet process alive; idle, it does not.
      worker.ref();
      worker.postMessage({ id, job } satisfies JobMessage<Job>, transfer);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.body);
    worker.unref();
    worker.on('message', (message: ResultMessage<Result>) => {
      const job = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) this.idle(worker);
      if (message.error === undefined) job?.resolve(message.result as Result);
      else job?.reject(message.error.kind ? new DynamoError(message.error.kind, message.error.message) : new Error(message.error.message));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.pending.values()) job.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`worker thread ${this.body.pathname} exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private idle(worker: Worker): void {
    worker.unref();
    this.idleTimer = setTimeout(() => {
      if (this.pending.size > 0 || this.worker !== worker) return;
      this.worker = undefined;
      // Its exit is expected; jobs by then belong to a later thread.
      worker.removeAllListeners('exit');
      worker.removeAllListeners('error');
      void worker.terminate();
    }, this.idleEndMs);
    this.idleTimer.unref();
  }
}

/** The body of a job thread: answers each job posted by its `JobThread` with `handle`'s result. */
export function serveJobs<Job, Result>(handle: (job: Job) => Result): void {
  parentPort?.on('message', ({ id, job }: JobMessage<Job>) => {
    let message: ResultMessage<Result>;
    try {
      message = { id, result: handle(job) };
    } catch (err) {
      message = { id, error: { message: (err as Error).message, kind: isDynamoError(err) ? err.kind : undefined } };
    }
    parentPort!.postMessage(message);
  });
}

// One worker thread that runs jobs off the event loop, in order, for work that would hold every
// other client (a long chat template, the parse of a huge body). The thread starts on first use and
// ends after a quiet spell, so the heap a huge job grew goes back to the system. Jobs and results
// cross by structured clone; a job's typed error comes back as the same kind and message. A job may
// also arrive in pieces (`open`): its bytes go over as they come, so the event loop never holds the
// whole of a huge input.

import { parentPort, Worker } from 'node:worker_threads';
import { DynamoError, isDynamoError, type ErrorKind } from '../protocols/index.js';

/** To the thread: a job's bytes (`chunk`), its end (`job`), or its cancellation (`abort`). */
interface JobMessage<Job> {
  id: number;
  job?: Job;
  chunk?: Uint8Array;
  abort?: true;
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

/** Bytes go to the thread in pieces of this size: one copy each, a few dozen messages for 40 MB. */
const CHUNK_BYTES = 1 << 20;

/** A job whose input bytes are written as they arrive; `end` hands over the rest of the job. */
export interface StreamedJob<Job, Result> {
  write(bytes: Uint8Array): void;
  end(job: Job): Promise<Result>;
  /** Drops the job; the thread forgets its bytes. */
  abort(): void;
}

export class JobThread<Job, Result> {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending<Result>>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private startCount = 0;

  /**
   * `body` is the worker module, which calls `serveJobs`; idle for `idleEndMs`, the thread ends
   * (`null`: it stays until `close`).
   */
  constructor(private readonly body: URL, private readonly idleEndMs: number | null = 5000) {}

  /** Whether a thread is up (it ends after the idle spell without work). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Threads started so far: a new one after an idle end or a crash knows nothing of its forerunner. */
  get starts(): number {
    return this.startCount;
  }

  /** Jobs sent and not yet answered. */
  get load(): number {
    return this.pending.size;
  }

  /** Ends the thread now; jobs in flight fail. The next job would start a new one. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    worker.removeAllListeners('exit');
    worker.removeAllListeners('error');
    for (const job of this.pending.values()) job.reject(new Error('the worker thread was closed'));
    this.pending.clear();
    await worker.terminate();
  }

  /** `transfer` lists buffers the job hands over rather than copies (they are unusable after). */
  run(job: Job, transfer: ArrayBuffer[] = []): Promise<Result> {
    const { id, worker, result } = this.begin();
    worker.postMessage({ id, job } satisfies JobMessage<Job>, transfer);
    return result;
  }

  /** A job whose bytes follow by `write`, copied in pieces and handed over, never joined here. */
  open(): StreamedJob<Job, Result> {
    const { id, worker, result } = this.begin();
    // A failure before `end` (the thread died) is reported by `end`'s promise, not as unhandled.
    result.catch(() => undefined);
    let staged = new Uint8Array(CHUNK_BYTES);
    let used = 0;
    const flush = (): void => {
      if (used === 0) return;
      const chunk = used === staged.length ? staged : staged.slice(0, used);
      worker.postMessage({ id, chunk } satisfies JobMessage<Job>, [chunk.buffer as ArrayBuffer]);
      staged = new Uint8Array(CHUNK_BYTES);
      used = 0;
    };
    return {
      write: (bytes) => {
        for (let at = 0; at < bytes.length; ) {
          const n = Math.min(bytes.length - at, staged.length - used);
          staged.set(bytes.subarray(at, at + n), used);
          used += n;
          at += n;
          if (used === staged.length) flush();
        }
      },
      end: (job) => {
        flush();
        worker.postMessage({ id, job } satisfies JobMessage<Job>);
        return result;
      },
      abort: () => {
        if (!this.pending.delete(id)) return;
        if (this.worker === worker) worker.postMessage({ id, abort: true } satisfies JobMessage<Job>);
        if (this.pending.size === 0) this.idle(worker);
      },
    };
  }

  private begin(): { id: number; worker: Worker; result: Promise<Result> } {
    const worker = this.started();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    const result = new Promise<Result>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Held while it has work, so a job in flight keeps a quiet process alive; idle, it does not.
    worker.ref();
    return { id, worker, result };
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.body);
    this.startCount++;
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
    clearTimeout(this.idleTimer);
    if (this.idleEndMs === null) return;
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

/**
 * The body of a job thread: answers each job posted by its `JobThread` with `handle`'s result (or
 * what its promise gives). `chunks` are the bytes a streamed job received before its end (none for
 * a job sent whole); `transferOf` names buffers of a result to hand over rather than copy.
 */
export function serveJobs<Job, Result>(
  handle: (job: Job, chunks: readonly Uint8Array[]) => Result | Promise<Result>,
  transferOf: (result: Result) => ArrayBuffer[] = () => [],
): void {
  const answer = (id: number, result: Result): void => parentPort!.postMessage({ id, result } satisfies ResultMessage<Result>, transferOf(result));
  const refuse = (id: number, err: unknown): void =>
    parentPort!.postMessage({
      id,
      error: { message: (err as Error).message, kind: isDynamoError(err) ? err.kind : undefined },
    } satisfies ResultMessage<Result>);
  const received = new Map<number, Uint8Array[]>();
  parentPort?.on('message', ({ id, job, chunk, abort }: JobMessage<Job>) => {
    if (chunk !== undefined) {
      const chunks = received.get(id);
      if (chunks) chunks.push(chunk);
      else received.set(id, [chunk]);
      return;
    }
    const chunks = received.get(id) ?? [];
    received.delete(id);
    if (abort) return;
    let result: Result | Promise<Result>;
    try {
      result = handle(job as Job, chunks);
    } catch (err) {
      refuse(id, err);
      return;
    }
    if (result instanceof Promise) result.then((r) => answer(id, r), (err: unknown) => refuse(id, err));
    else answer(id, result);
  });
}

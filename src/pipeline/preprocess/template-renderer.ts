// Chat templates of long conversations render off the event loop. @huggingface/jinja costs
// 0.1–0.5 ms per message here (bench/RESULTS.md, hostile input), so a 4096-message request held
// every other client for a second or more. One shared thread renders them, in order; short
// requests stay inline, where the hop would cost more than the render. The thread ends after a
// quiet spell, so the heap a huge render grew goes back to the system.

import { Worker } from 'node:worker_threads';
import type { RenderJob, RenderResult } from './template-worker.js';

/** A render thread with no work for this long is ended; the next long render starts another. */
const IDLE_END_MS = 5000;

interface Pending {
  resolve(text: string): void;
  reject(err: Error): void;
}

class TemplateRenderThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  /** Whether a thread is up (it ends after IDLE_END_MS without work). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  render(source: string, context: Record<string, unknown>): Promise<string> {
    const worker = this.started();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held while it has work, so a render in flight keeps a quiet process alive; idle, it does not.
      worker.ref();
      worker.postMessage({ id, source, context } satisfies RenderJob);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./template-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (result: RenderResult) => {
      const job = this.pending.get(result.id);
      this.pending.delete(result.id);
      if (this.pending.size === 0) this.idle(worker);
      if (result.error !== undefined) job?.reject(new Error(result.error));
      else job?.resolve(result.text!);
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.pending.values()) job.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`template render thread exited with code ${code}`)));
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
    }, IDLE_END_MS);
    this.idleTimer.unref();
  }
}

/** The process's one render thread, started on first use. */
export const templateRenderThread = new TemplateRenderThread();

// `--dyn-preprocess-workers N`: chat template render and tokenize of big requests on N worker
// threads, so no client waits behind another's long prompt. Each thread loads a model's template
// and tokenizer on its first job for that model and keeps them; the token ids come back as a
// transferred Uint32Array. Small requests stay on the event loop, where the hop would cost more
// than the work (docs/design-notes.md, "Preprocessing threads").

import { InternalError, isDynamoError, type ChatCompletionRequest } from '../../protocols/index.js';
import { JobThread } from '../job-thread.js';
import type { ModelSetup, PromptJob, PromptResult } from './preprocess-worker.js';

/** Prompts of at least this many characters go to a thread (the measured crossover, with margin). */
export const DEFAULT_OFFLOAD_MIN_CHARS = 16_384;

/** A prompt as the preprocessor uses it. */
export interface PooledPrompt {
  tokens: number[];
  text: string;
  tokenizeMs: number;
}

interface Slot {
  thread: JobThread<PromptJob, PromptResult>;
  /** The models set up on the thread of start number `starts`. */
  starts: number;
  models: Set<string>;
}

const WORKER = new URL('./preprocess-worker.js', import.meta.url);

export class PreprocessPool {
  private readonly slots: Slot[];

  /** `body` is the thread's module (tests give a wrapper of the real one). */
  constructor(
    size: number,
    readonly minChars = DEFAULT_OFFLOAD_MIN_CHARS,
    body: URL = WORKER,
  ) {
    this.slots = Array.from({ length: size }, () => ({ thread: new JobThread<PromptJob, PromptResult>(body, null), starts: -1, models: new Set<string>() }));
  }

  get size(): number {
    return this.slots.length;
  }

  /** Threads up now (they start on first use and after a crash). */
  get running(): number {
    return this.slots.filter((slot) => slot.thread.running).length;
  }

  /** The chat request rendered with the model's template, then tokenized without added special tokens. */
  chat(model: string, setup: () => ModelSetup, request: ChatCompletionRequest): Promise<PooledPrompt> {
    return this.run(model, setup, { model, chat: request, addSpecialTokens: false });
  }

  text(model: string, setup: () => ModelSetup, text: string, addSpecialTokens: boolean): Promise<PooledPrompt> {
    return this.run(model, setup, { model, text, addSpecialTokens });
  }

  /** Ends every thread; jobs in flight fail. */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.thread.close()));
  }

  private async run(model: string, setup: () => ModelSetup, job: PromptJob): Promise<PooledPrompt> {
    const slot = this.leastLoaded();
    // A thread about to start, or started since the slot's models were set up, knows no model.
    const starts = slot.thread.running ? slot.thread.starts : slot.thread.starts + 1;
    if (slot.starts !== starts) {
      slot.starts = starts;
      slot.models.clear();
    }
    if (!slot.models.has(model)) {
      job.setup = setup();
      slot.models.add(model);
    }
    let result: PromptResult;
    try {
      result = await slot.thread.run(job);
    } catch (err) {
      if (isDynamoError(err)) throw err;
      // The thread died (or failed outside the template and tokenizer): only this request fails;
      // the slot's next job starts a new thread.
      throw new InternalError('Internal server error: the preprocessing thread failed while preparing this request');
    }
    return { tokens: Array.from(result.ids), text: result.text, tokenizeMs: result.tokenizeMs };
  }

  private leastLoaded(): Slot {
    let best = this.slots[0]!;
    for (const slot of this.slots) if (slot.thread.load < best.thread.load) best = slot;
    return best;
  }
}

// The body of a preprocessing thread (see preprocess-pool.ts): chat template render and tokenize,
// with the very `ChatTemplate` and `HfTokenizer` of the inline path, so the token ids are the same.

import { performance } from 'node:perf_hooks';
import type { ChatCompletionRequest, ModelDeploymentCard } from '../../protocols/index.js';
import { serveJobs } from '../job-thread.js';
import { ChatTemplate, type ChatTemplateOptions } from './chat-template.js';
import { HfTokenizer } from './tokenizer/index.js';

/** What a thread needs to preprocess for one model; sent with the first job of that model. */
export interface ModelSetup {
  card: ModelDeploymentCard;
  template: ChatTemplateOptions;
}

export interface PromptJob {
  /** The model's key in the pool (its card's name and tokenizer file). */
  model: string;
  setup?: ModelSetup;
  /** A chat request to render and tokenize, or a text to tokenize. */
  chat?: ChatCompletionRequest;
  text?: string;
  addSpecialTokens: boolean;
}

export interface PromptResult {
  ids: Uint32Array;
  /** The rendered prompt (the text itself for a text job). */
  text: string;
  tokenizeMs: number;
}

interface Model {
  template: ChatTemplate;
  tokenizer: HfTokenizer;
}

const models = new Map<string, Model>();

function modelFor(job: PromptJob): Model {
  let model = models.get(job.model);
  if (model) return model;
  if (!job.setup) throw new Error(`preprocessing thread: model ${job.model} was never set up`);
  // A thread has no event loop to keep free: the fast encoder takes texts of any length (it still
  // leaves texts with very long pieces to the native core).
  const tokenizer = new HfTokenizer(job.setup.card.tokenizerJsonPath, { fastBpeMaxChars: Infinity });
  model = { template: new ChatTemplate(job.setup.card, job.setup.template), tokenizer };
  models.set(job.model, model);
  return model;
}

serveJobs(
  async (job: PromptJob): Promise<PromptResult> => {
    const model = modelFor(job);
    const text = job.chat ? model.template.render(job.chat) : job.text!;
    const started = performance.now();
    const ids = await model.tokenizer.encode(text, job.addSpecialTokens);
    return { ids: Uint32Array.from(ids), text, tokenizeMs: performance.now() - started };
  },
  (result) => [result.ids.buffer as ArrayBuffer],
);

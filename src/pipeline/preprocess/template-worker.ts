// The body of the template render thread (see template-renderer.ts): renders chat templates,
// each compiled once per source, for contexts posted by the event loop.

import { Template } from '@huggingface/jinja';
import { parentPort } from 'node:worker_threads';

export interface RenderJob {
  id: number;
  source: string;
  context: Record<string, unknown>;
}

export interface RenderResult {
  id: number;
  text?: string;
  error?: string;
}

const compiled = new Map<string, Template>();

function render(job: RenderJob): RenderResult {
  try {
    let template = compiled.get(job.source);
    if (!template) {
      template = new Template(job.source);
      compiled.set(job.source, template);
    }
    return { id: job.id, text: template.render(job.context) };
  } catch (err) {
    return { id: job.id, error: (err as Error).message };
  }
}

parentPort?.on('message', (job: RenderJob) => parentPort!.postMessage(render(job)));

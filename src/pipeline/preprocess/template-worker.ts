// The body of the template render thread (see template-renderer.ts): renders chat templates,
// each compiled once per source, for contexts posted by the event loop.

import { Template } from '@huggingface/jinja';
import { serveJobs } from '../job-thread.js';

export interface RenderJob {
  source: string;
  context: Record<string, unknown>;
}

const compiled = new Map<string, Template>();

serveJobs(({ source, context }: RenderJob): string => {
  let template = compiled.get(source);
  if (!template) {
    template = new Template(source);
    compiled.set(source, template);
  }
  return template.render(context);
});

// The body of the template render thread (see template-renderer.ts): renders chat templates,
// each compiled once per source, for contexts posted by the event loop.

import { serveJobs } from '../job-thread.js';
import { TemplateProgram } from './jinja/index.js';

export interface RenderJob {
  source: string;
  context: Record<string, unknown>;
}

const compiled = new Map<string, TemplateProgram>();

serveJobs(({ source, context }: RenderJob): string => {
  let template = compiled.get(source);
  if (!template) {
    template = new TemplateProgram(source);
    compiled.set(source, template);
  }
  return template.render(context);
});

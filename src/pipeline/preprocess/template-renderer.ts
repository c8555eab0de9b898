// Chat templates of long conversations render off the event loop. @huggingface/jinja costs
// 0.1–0.5 ms per message here (bench/RESULTS.md, hostile input), so a 4096-message request held
// every other client for a second or more. One shared thread renders them, in order; short
// requests stay inline, where the hop would cost more than the render.

import { JobThread } from '../job-thread.js';
import type { RenderJob } from './template-worker.js';

/** The process's one render thread, started on first use, ended after 5 s without work. */
export const templateRenderThread = new JobThread<RenderJob, string>(new URL('./template-worker.js', import.meta.url));

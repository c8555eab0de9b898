// Chat templates of long conversations render off the event loop: even compiled, a render grows
// with the conversation, and a request at the message limit must not hold every other client.
// One shared thread renders them, in order; short requests stay inline, where copying the
// context to the thread would cost more than the render.

import { JobThread } from '../job-thread.js';
import type { RenderJob } from './template-worker.js';

/** The process's one render thread, started on first use, ended after 5 s without work. */
export const templateRenderThread = new JobThread<RenderJob, string>(new URL('./template-worker.js', import.meta.url));

// Bodies past a threshold are parsed off the event loop: JSON.parse of a 40 MB body held every
// other client for most of a second (bench/RESULTS.md, hostile input). One shared thread parses
// them in order, with the same tolerance, depth check and error messages as the inline parse; the
// parsed object comes back by structured clone.

import { JobThread } from '../../pipeline/index.js';

/** Bodies of at least this many KiB are parsed on the thread unless configured otherwise. */
export const DEFAULT_PARSE_THREAD_KB = 1024;

const parseThread = new JobThread<Uint8Array, unknown>(new URL('./json-body-worker.js', import.meta.url));

/** `parseJsonBody` on the parse thread. The body is handed over, not copied, when it owns its memory. */
export function parseJsonBodyOffLoop(body: Buffer): Promise<unknown> {
  const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  return parseThread.run(body, owned ? [body.buffer as ArrayBuffer] : []);
}

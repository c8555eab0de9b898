// Bodies past a threshold are parsed off the event loop: JSON.parse of a 40 MB body held every
// other client for most of a second, and joining its chunks another 100 ms (bench/RESULTS.md,
// hostile input). Such a body's bytes go to one shared thread as they arrive; the thread joins and
// parses them with the same tolerance, depth check and error messages as the inline parse, then
// checks the request size limits, so an over-limit body never comes back. An accepted body's
// object comes back by structured clone.

import { JobThread, type RequestLimits, type StreamedJob } from '../../../pipeline/index.js';

/** Bodies of at least this many KiB are parsed on the thread unless configured otherwise. */
export const DEFAULT_PARSE_THREAD_KB = 1024;

/** What the thread needs once the last byte is in. */
export interface BodyParseJob {
  limits: RequestLimits;
}

const parseThread = new JobThread<BodyParseJob, unknown>(new URL('./json-body-worker.js', import.meta.url));

/** A body parse on the thread: `write` each chunk as it arrives, `end` with the limits for the object. */
export function openBodyParse(): StreamedJob<BodyParseJob, unknown> {
  return parseThread.open();
}

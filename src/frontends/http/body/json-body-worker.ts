// The body of the JSON parse thread (see json-body-thread.ts).

import { checkBodyLimits, serveJobs } from '../../../pipeline/index.js';
import type { BodyParseJob } from './json-body-thread.js';
import { parseJsonBody } from './json-body.js';

serveJobs(({ limits }: BodyParseJob, chunks) => {
  const parsed = parseJsonBody(Buffer.concat(chunks));
  checkBodyLimits(parsed, limits);
  return parsed;
});

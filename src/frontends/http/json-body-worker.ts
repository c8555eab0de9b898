// The body of the JSON parse thread (see json-body-thread.ts).

import { serveJobs } from '../../pipeline/index.js';
import { parseJsonBody } from './json-body.js';

serveJobs((body: Uint8Array) => parseJsonBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength)));

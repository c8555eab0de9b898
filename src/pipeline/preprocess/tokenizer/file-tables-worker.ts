// The body of the thread that builds a tokenizer file's tables (see file-tables.ts).

import { serveJobs } from '../../job-thread.js';
import { buildFileTablesParts, fileTablesBuffers } from './file-tables.js';

serveJobs(buildFileTablesParts, fileTablesBuffers);

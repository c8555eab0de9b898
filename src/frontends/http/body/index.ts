// Reading request bodies: JSON parsed inline or, for big bodies, on the parse thread as the chunks
// arrive (json-body-reader.ts); the upload timers for slow bodies (upload-timeouts.ts).
export { readJsonBody, type BodyReadOptions } from './json-body-reader.js';
export { DEFAULT_PARSE_THREAD_KB } from './json-body-thread.js';
export { parseJsonBody } from './json-body.js';
export { DEFAULT_UPLOAD_TIMEOUTS, boundUploads, serverUploadTimeouts, type UploadTimeouts } from './upload-timeouts.js';

// Reading request bodies: JSON parsed inline or, for big bodies, on the parse thread as the chunks
// arrive (json-body-reader.ts); the upload timers for slow bodies (upload-timeouts.ts); a client
// that closes mid-body as a quiet outcome (client-abort.ts).
export { clientClosedBody, isClientAbort } from './client-abort.js';
export { readJsonBody, type BodyReadOptions } from './json-body-reader.js';
export { DEFAULT_PARSE_THREAD_KB } from './json-body-thread.js';
export { parseJsonBody } from './json-body.js';
export { DEFAULT_UPLOAD_TIMEOUTS, boundUpload, serverUploadTimeouts, type UploadTimeouts } from './upload-timeouts.js';

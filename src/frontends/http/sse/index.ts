// Server-sent events: one writer per stream (sse-writer.ts), every stream's frames written through
// the process's one coalescer (protocols/streams/write-coalescer.ts).
export { EventTemplate, SseWriter } from './sse-writer.js';

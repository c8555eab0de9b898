export { EventTemplate, SseWriter } from './sse-writer.js';

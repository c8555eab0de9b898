// A preprocessing thread that dies on a text containing CRASH_THREAD, else the real one: for the
// pool's crash tests. The real body listens first; the exit comes before its answer can.

import { parentPort } from 'node:worker_threads';
import '../../../src/pipeline/preprocess/preprocess-worker.js';

parentPort!.on('message', (message: { job?: { text?: string; chat?: { messages: { content?: unknown }[] } } }) => {
  const texts = [message.job?.text, ...(message.job?.chat?.messages.map((m) => m.content) ?? [])];
  if (texts.some((text) => typeof text === 'string' && text.includes('CRASH_THREAD'))) process.exit(7);
});

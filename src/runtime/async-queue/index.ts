export { AsyncQueue, type QueueClose } from './async-queue.js';
export { queueStream, type OpenedQueue } from './opened-queue.js';

export { AsyncQueue, type QueueClose } from './async-queue.js';
export { queueStream, startedQueueStream, type OpenedQueue } from './opened-queue.js';

// Kept out of the runtime's main index so an engine can use it without loading the planes' clients.
export { AsyncQueue } from './async-queue.js';

export { pinning } from './pinning.js';
export { requireWorkers } from './require-workers.js';
export { busyGate } from './busy-gate.js';
export { routerQueue } from './router-queue.js';
export { policySelect } from './policy-select.js';
export { loadTracking } from './load-tracking.js';
export { skipExcluded } from './skip-excluded.js';
export { migration, NO_MIGRATION, type Migration, type MigrationLogger, type MigrationSettings } from './migration.js';
export { lostWorker } from './lost-worker.js';

// Which workers are down, and which have gone silent: the process's records every router shares.
export { InstanceHealth, type InstanceHealthOptions, type InstanceProbe, type HealthChange } from './instance-health.js';
export { WorkerLiveness, DEFAULT_SILENCE_BOUNDS, type SilenceBounds, type StreamWatch } from './worker-liveness.js';

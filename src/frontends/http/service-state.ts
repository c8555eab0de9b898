import { UnavailableError } from '../../protocols/index.js';

export type ServicePhase = 'serving' | 'draining' | 'stopping';

/** Lifecycle and shared settings of one HTTP service, read by every route. */
export class HttpServiceState {
  phase: ServicePhase = 'serving';
  inflight = 0;

  constructor(readonly overloadStatus: number) {}

  /** New inference requests are refused once draining starts; in-flight ones continue. */
  assertServing(): void {
    if (this.phase !== 'serving') throw new UnavailableError('Service is not ready');
  }
}

// What the routing layers read from their router. They read it on every request, so
// `/busy_threshold` changes and instance changes apply to the next request.
import type { BusyThresholds } from './busy.js';
import type { Migration } from './layers/migration.js';
import type { LoadTracker } from './load-tracker.js';
import type { RouterPolicy } from './policy.js';
import type { RequestView } from './request-views.js';
import type { Instance } from './route.js';

export interface RouterView<Req, Out> {
  /** For error messages. */
  readonly modelName: string;
  /** The live instances, sorted by id. */
  readonly instances: readonly Instance<Req, Out>[];
  readonly requests: RequestView<Req>;
  readonly busyThresholds: BusyThresholds;
  /** The router's own count of requests in flight and prompt tokens not yet prefilled, per instance. */
  readonly load: LoadTracker;
  readonly policy: RouterPolicy<Req, Out>;
  /** How a request goes on when its worker is lost. */
  readonly migration: Migration<Req, Out>;
}

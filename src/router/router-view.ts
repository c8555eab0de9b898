// What the routing layers read from their router. They read it on every request, so
// `/busy_threshold` changes and instance changes apply to the next request.
import type { BusyThresholds } from './busy.js';
import type { InstanceHealth, WorkerLiveness } from './health/index.js';
import type { Migration } from './layers/migration-settings.js';
import type { LoadTracker } from './load-tracker.js';
import type { RouterPolicy } from './policies/index.js';
import type { RequestView } from './request-views.js';
import type { Instance } from './route.js';
import type { SessionAffinity } from './session-affinity.js';

export interface RouterView<Req, Out> {
  /** For error messages. */
  readonly modelName: string;
  /** The routable instances: discovered and not down, sorted by id. */
  readonly instances: readonly Instance<Req, Out>[];
  /** Which instances are down; shared by every router of the process. */
  readonly health: InstanceHealth;
  /** A stream silent this long fails as a lost worker (DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS); 0: never. */
  readonly stallTimeoutMs: number;
  /** The process's watch for silent workers (pinged, then failed over); null: only the stall timeout. */
  readonly liveness: WorkerLiveness | null;
  readonly requests: RequestView<Req>;
  readonly busyThresholds: BusyThresholds;
  /** The router's own count of requests in flight and prompt tokens not yet prefilled, per instance. */
  readonly load: LoadTracker;
  readonly policy: RouterPolicy<Req, Out>;
  /** The router mode the policy was made for (`round-robin`, `kv`, ...). */
  readonly mode: string;
  /** How a request goes on when its worker is lost. */
  readonly migration: Migration<Req, Out>;
  /** With --router-session-affinity-ttl-secs: where each session's requests go; null: off. */
  readonly affinity: SessionAffinity | null;
}

// Loss and return of what this process depends on (etcd, NATS, each ZMQ publisher), one record per
// runtime and its siblings. Each connection reports itself; a loss is logged once at warn, saying
// what is degraded, and its return once at info, saying for how long. /health and /metrics read the
// outages; whoever degrades gracefully (KV routing predicts while events are down, workers announce
// their caches again when events are back) subscribes to the planes' changes.
import { PLANE_NAMES, type PlaneName, type PlaneOutage, type PlaneStatusView } from '../protocols/index.js';

export interface PlaneLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** One connection a plane depends on, reporting its own state; repeated reports are ignored. */
export interface PlaneConnection {
  lost(detail: string): void;
  restored(): void;
  /** Gone for good (a publisher left discovery): its outage, if any, ends without a return. */
  gone(): void;
}

/** A whole plane went down (its first outage) or came back (its last outage ended). */
export type PlaneChange = { readonly plane: PlaneName; readonly up: boolean };

/** What does not work while a plane is down, and what is done instead. */
const EFFECTS: { readonly [P in PlaneName]: string } = {
  discovery: "workers that start or stop go unseen and this process's registrations are not renewed; serving goes on with the workers already known",
  events:
    'KV events and load reports do not arrive: KV routers predict cache contents from their own decisions and busy detection keeps the last reports; workers announce their caches again once it is back',
  requests: 'requests to workers on this request plane fail until it is back',
};

export class PlaneStatus implements PlaneStatusView {
  private readonly down = new Map<string, PlaneOutage>();
  private readonly listeners = new Set<(change: PlaneChange) => void>();

  constructor(private readonly logger?: PlaneLogger) {}

  /** The reporter of one connection of `plane`, named by `what` (e.g. `etcd at http://…`). */
  connection(plane: PlaneName, what: string): PlaneConnection {
    const key = `${plane} ${what}`;
    return {
      lost: (detail) => this.lose(key, { plane, what, effect: EFFECTS[plane], since: Date.now() }, detail),
      restored: () => this.end(key, 'back'),
      gone: () => this.end(key, 'gone'),
    };
  }

  isUp(plane: PlaneName): boolean {
    for (const o of this.down.values()) if (o.plane === plane) return false;
    return true;
  }

  /** Each plane, up or not. */
  planes(): { plane: PlaneName; up: boolean }[] {
    return PLANE_NAMES.map((plane) => ({ plane, up: this.isUp(plane) }));
  }

  outages(): readonly PlaneOutage[] {
    return [...this.down.values()];
  }

  /** Told when a plane goes down or comes back; returns the function that stops it. */
  subscribe(listener: (change: PlaneChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private lose(key: string, outage: PlaneOutage, detail: string): void {
    if (this.down.has(key)) return;
    const wasUp = this.isUp(outage.plane);
    this.down.set(key, outage);
    this.logger?.warn({ plane: outage.plane, what: outage.what, detail }, `${outage.what} lost (${detail}): ${outage.effect}`);
    if (wasUp) this.emit({ plane: outage.plane, up: false });
  }

  private end(key: string, how: 'back' | 'gone'): void {
    const outage = this.down.get(key);
    if (!outage) return;
    this.down.delete(key);
    const downSecs = Math.round((Date.now() - outage.since) / 100) / 10;
    const { plane, what } = outage;
    const msg = how === 'back' ? `${what} back after ${downSecs} s down` : `${what} left discovery after ${downSecs} s unreachable`;
    this.logger?.info({ plane, what, downSecs }, msg);
    if (this.isUp(plane)) this.emit({ plane, up: true });
  }

  private emit(change: PlaneChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

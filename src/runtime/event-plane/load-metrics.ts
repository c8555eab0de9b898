// Worker load metrics on the event plane, as upstream's newest workers push them: `ActiveLoad` JSON
// on `namespace.{ns}.kv_metrics` (reference/router.md §2.2, §8.4). Frontends read them for busy
// detection; the totals they are compared with come from the model card's `runtime_config`.
import type { ActiveLoad, EngineLoad } from '../../protocols/index.js';
import { activeLoadFrom, decodeActiveLoad, encodeActiveLoad } from '../codecs/index.js';
import { subscribeDecoded } from './decoded-subscription.js';
import { componentScope, type EventPlane } from './types.js';

export const LOAD_METRICS_TOPIC = 'kv_metrics';

export function loadMetricsSubject(namespace: string): string {
  return `${componentScope(namespace)}.${LOAD_METRICS_TOPIC}`;
}

/** Publishes one worker's load; hand the result to the engine's `onLoad`. */
export function loadMetricsPublisher(plane: EventPlane, namespace: string, workerId: bigint): (load: EngineLoad) => void {
  const subject = loadMetricsSubject(namespace);
  return (load) => {
    if (plane.hasSubscribers?.(subject) === false) return;
    const report: ActiveLoad = { worker_id: workerId, ...load };
    // In-process the report itself is handed over: encoded only for a subscriber that reads bytes.
    if (plane.publishValue) plane.publishValue(subject, report, () => encodeActiveLoad(report));
    else plane.publish(subject, encodeActiveLoad(report));
  };
}

/** Makes a namespace's load subject discoverable before the first report (ZMQ). */
export async function announceLoadMetrics(plane: EventPlane, namespace: string): Promise<void> {
  await plane.announce?.(loadMetricsSubject(namespace));
}

/** Subscribes to the load reports of every worker in a namespace; undecodable ones go to `onInvalid`. */
export function subscribeLoadMetrics(
  plane: EventPlane,
  namespace: string,
  handler: (load: ActiveLoad) => void,
  onInvalid?: (err: Error) => void,
): Promise<() => void> {
  return subscribeDecoded(plane, loadMetricsSubject(namespace), decodeActiveLoad, handler, onInvalid, activeLoadFrom);
}

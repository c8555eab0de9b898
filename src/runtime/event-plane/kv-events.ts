// KV cache events on the event plane, as upstream RouterEvent JSON on
// `namespace.{ns}.component.{c}.kv-events` (reference/router.md §2.1-§2.2). Hashes and worker ids
// are u64: written as bare numbers, read back losslessly as bigint.
import type { KvCacheEvent, RouterEvent } from '../../protocols/index.js';
import { decodeRouterEvent, encodeRouterEvent } from '../codecs/index.js';
import { subscribeDecoded } from './decoded-subscription.js';
import { componentScope, type EventPlane } from './types.js';

export const KV_EVENT_TOPIC = 'kv-events';

export function kvEventSubject(namespace: string, component: string): string {
  return `${componentScope(namespace, component)}.${KV_EVENT_TOPIC}`;
}

/** Publishes one worker's KV events; hand the result to the engine's `onKvEvent`. */
export function kvEventPublisher(plane: EventPlane, namespace: string, component: string, workerId: bigint): (event: KvCacheEvent) => void {
  const subject = kvEventSubject(namespace, component);
  return (event) => {
    if (plane.hasSubscribers?.(subject) !== false) plane.publish(subject, encodeRouterEvent({ worker_id: workerId, event }));
  };
}

/** Makes a component's KV event subject discoverable before its first event (ZMQ). */
export async function announceKvEvents(plane: EventPlane, namespace: string, component: string): Promise<void> {
  await plane.announce?.(kvEventSubject(namespace, component));
}

/**
 * Subscribes to a component's KV events. Accepts a bare RouterEvent and the 2026 envelope
 * `{publisher_id, sequence, published_at, payload:[bytes]}`; undecodable messages go to `onInvalid`.
 */
export function subscribeKvEvents(
  plane: EventPlane,
  namespace: string,
  component: string,
  handler: (event: RouterEvent) => void,
  onInvalid?: (err: Error) => void,
): Promise<() => void> {
  return subscribeDecoded(plane, kvEventSubject(namespace, component), decodeRouterEvent, handler, onInvalid);
}

// Session bindings shared between router replicas (reference/disagg-router.md §3.1): each binding
// a router makes, and its refresh when a request of the session ends, goes out on the component's
// `session_affinity_events` subject as `{"session_id","worker_id","dp_rank","router_id"}`. A
// replica applies another router's update when it names a worker it knows; the first live binding
// wins (session-affinity.ts). Started with --router-replica-sync, beside the active-sequence sync.
import { asU64, parseJsonLossless, stringifyJsonWithU64 } from '../../runtime/codecs/index.js';
import type { EventBus } from './replica-sync.js';
import type { SessionAffinity } from '../session-affinity.js';

export const SESSION_AFFINITY_TOPIC = 'session_affinity_events';

export interface SessionAffinityEvent {
  session_id: string;
  worker_id: bigint;
  dp_rank: number | null;
  router_id: bigint;
}

/** Decodes an update; null for anything malformed. */
export function decodeSessionAffinityEvent(text: string): SessionAffinityEvent | null {
  let v: Record<string, unknown>;
  try {
    v = parseJsonLossless(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || typeof v.session_id !== 'string') return null;
  const workerId = asU64(v.worker_id);
  const routerId = asU64(v.router_id);
  if (workerId === null || routerId === null) return null;
  return { session_id: v.session_id, worker_id: workerId, dp_rank: typeof v.dp_rank === 'number' ? v.dp_rank : null, router_id: routerId };
}

/**
 * Publishes `affinity`'s bindings on `{scope}.session_affinity_events` and applies the other
 * routers' ones whose worker `knows`. Resolves once subscribed; the result stops it.
 */
export async function startSessionAffinitySync(
  bus: EventBus,
  affinity: SessionAffinity,
  opts: { scope: string; routerId: bigint; knows: (worker: bigint) => boolean },
): Promise<() => void> {
  const subject = `${opts.scope}.${SESSION_AFFINITY_TOPIC}`;
  const unsubscribe = await bus.subscribe(subject, (payload) => {
    const e = decodeSessionAffinityEvent(payload.toString('utf8'));
    if (!e || e.router_id === opts.routerId || !opts.knows(e.worker_id)) return;
    affinity.applyRemote(e.session_id, e.worker_id);
  });
  affinity.onBind((sessionId, worker) => {
    const event: SessionAffinityEvent = { session_id: sessionId, worker_id: worker, dp_rank: null, router_id: opts.routerId };
    bus.publish(subject, stringifyJsonWithU64(event));
  });
  return () => {
    affinity.onBind(null);
    unsubscribe();
  };
}

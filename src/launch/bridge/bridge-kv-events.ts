// `--kv-events-endpoint`: subscribes to a vLLM engine's ZMQ KV event publisher and republishes its
// batches on the event plane as the bridged instance's events, so kv routing sees the engine's real
// cache instead of predicting it.
import { Subscriber } from 'zeromq';
import type { KvCacheEvent } from '../../protocols/index.js';
import { decodeVllmEventBatch } from '../../router/index.js';

export interface KvEventRelayLogger {
  warn(obj: object, msg: string): void;
}

export interface KvEventRelay {
  close(): void;
}

/** Relays device-tier events of `endpoint` to `publish`, numbering them in order. */
export function relayVllmKvEvents(endpoint: string, blockSize: number, publish: (event: KvCacheEvent) => void, logger: KvEventRelayLogger): KvEventRelay {
  const socket = new Subscriber();
  socket.subscribe();
  socket.connect(endpoint);
  let nextId = 0;
  void (async () => {
    for await (const frames of socket) {
      // [topic, sequence, payload]; older publishers send [topic, payload].
      const payload = frames[frames.length - 1]!;
      try {
        const batch = decodeVllmEventBatch(payload, { blockSize });
        batch.events.forEach((event, i) => {
          if (batch.tiers[i] === 'device') publish({ ...event, event_id: nextId++ });
        });
      } catch (err) {
        logger.warn({ endpoint, err: (err as Error).message }, 'KV event batch dropped');
      }
    }
  })().catch(() => undefined);
  return { close: () => socket.close() };
}

import type { DiscoveryBackend } from './backend.js';

export interface RecordWatchHandlers<T> {
  /** A record appeared or changed. */
  onPut(key: string, record: T): void;
  /** A record went away (deleted, or its lease expired). Only called for keys once put. */
  onDelete(key: string): void;
  /** A value under the prefix that is not a record of this kind. */
  onInvalid?(key: string, value: string): void;
}

/** Get-and-watch one bucket prefix, decoding values into typed records. */
export function watchRecords<T>(
  backend: DiscoveryBackend,
  prefix: string,
  decode: (key: string, value: string) => T | null,
  handlers: RecordWatchHandlers<T>,
): Promise<() => void> {
  const live = new Set<string>();
  return backend.watch(prefix, (event) => {
    if (event.type === 'delete') {
      if (live.delete(event.key)) handlers.onDelete(event.key);
      return;
    }
    const record = decode(event.key, event.value);
    if (record === null) {
      handlers.onInvalid?.(event.key, event.value);
      return;
    }
    live.add(event.key);
    handlers.onPut(event.key, record);
  });
}

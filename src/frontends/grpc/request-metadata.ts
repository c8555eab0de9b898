// `x-dynamo-meta-*` gRPC metadata → the request context's metadata map (reference/kserve.md §1):
// prefix stripped, values trimmed, binary keys skipped, first value wins, bounded in count and size.

import type * as grpc from '@grpc/grpc-js';
import { ValidationError } from '../../protocols/index.js';

export const DEFAULT_METADATA_PREFIX = 'x-dynamo-meta-';
const MAX_ENTRIES = 64;
const MAX_BYTES = 65_536;

/** The passthrough entries of one call, or undefined when it has none. */
export function requestMetadata(metadata: grpc.Metadata, prefix: string): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  let count = 0;
  let bytes = 0;
  // getMap() keeps the first value of each key; grpc-js lower-cases keys.
  const map = metadata.getMap();
  for (const key in map) {
    if (!key.startsWith(prefix) || key.endsWith('-bin') || key.length === prefix.length) continue;
    const value = map[key];
    if (typeof value !== 'string') continue;
    const name = key.slice(prefix.length);
    const trimmed = value.trim();
    if (++count > MAX_ENTRIES) throw new ValidationError(`metadata headers exceed the limit of ${MAX_ENTRIES} entries`);
    bytes += Buffer.byteLength(name) + Buffer.byteLength(trimmed);
    if (bytes > MAX_BYTES) throw new ValidationError(`metadata headers exceed the limit of ${MAX_BYTES} bytes`);
    (out ??= {})[name] = trimmed;
  }
  return out;
}

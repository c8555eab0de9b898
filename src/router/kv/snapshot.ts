// The KV router's snapshot: its indexers dumped as single-block store events (upstream
// dump_tree_as_events, each block with its parent and storage tier), written as a JSON array of
// upstream RouterEvent objects. One event per line, so decoding goes line by line instead of
// parsing one huge document; u64 hashes stay bare JSON integers, read back losslessly.
import { ValidationError, type RouterEvent } from '../../protocols/index.js';
import { decodeRouterEvent, encodeRouterEvent } from '../../runtime/codecs/index.js';

export function encodeKvSnapshot(events: readonly RouterEvent[]): Buffer {
  if (events.length === 0) return Buffer.from('[]\n');
  const lines = new Array<string>(events.length);
  for (let i = 0; i < events.length; i++) lines[i] = encodeRouterEvent(events[i]!);
  return Buffer.from(`[\n${lines.join(',\n')}\n]\n`);
}

export function decodeKvSnapshot(data: Uint8Array): RouterEvent[] {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  const lines = text.split('\n');
  if (lines[0]?.trim() === '[]') return [];
  if (lines[0] !== '[') throw new ValidationError('KV router snapshot: not a snapshot (expected "[" on its first line)');
  const out: RouterEvent[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === ']') return out;
    out.push(decodeRouterEvent(line.endsWith(',') ? line.slice(0, -1) : line));
  }
  throw new ValidationError('KV router snapshot: truncated (no closing "]")');
}

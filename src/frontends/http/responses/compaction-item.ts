// A compaction item's content as this gateway writes and reads it (compaction.ts makes them): the
// model's summary, encoded, not encrypted, as `dyn1.` + base64url JSON, so only ours are read back.
import { ValidationError } from '../../../protocols/index.js';

const PREFIX = 'dyn1.';

export function encodeCompaction(summary: string): string {
  return PREFIX + Buffer.from(JSON.stringify({ summary })).toString('base64url');
}

/** The summary a compaction item of this gateway carries; another service's item is a 400. */
export function decodeCompaction(content: unknown, path: string): string {
  if (typeof content !== 'string' || !content.startsWith(PREFIX)) {
    throw new ValidationError(`\`${path}.encrypted_content\`: this compaction item was not made by this gateway (its /v1/responses/compact)`);
  }
  try {
    const { summary } = JSON.parse(Buffer.from(content.slice(PREFIX.length), 'base64url').toString('utf8')) as { summary: unknown };
    if (typeof summary === 'string') return summary;
  } catch {
    // Falls through to the refusal below.
  }
  throw new ValidationError(`\`${path}.encrypted_content\` is not a readable compaction`);
}

/** The text the model reads for a compaction item. */
export function compactionText(summary: string): string {
  return `Summary of the conversation before this point:\n${summary}`;
}


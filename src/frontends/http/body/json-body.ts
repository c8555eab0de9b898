import { checkJsonDepth, MAX_JSON_DEPTH } from '../../../pipeline/index.js';
import { ValidationError } from '../../../protocols/index.js';
import { restoreExactIds } from './exact-worker-ids.js';

// Raw control characters (U+0000–U+001F) are invalid inside JSON strings; clients do send them.
const RAW_CONTROL = /[\u0000-\u001f]/;
/** Texts shorter than this nest at most MAX_JSON_DEPTH levels (the limit). */
const SHALLOW_CHARS = 2 * (MAX_JSON_DEPTH + 1);
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** Escape raw control characters that sit inside string literals; leave structural whitespace alone. */
function escapeControlCharsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
      else if (c < 0x20) {
        const ch = text[i]!;
        out += text.slice(last, i) + (ESCAPES[ch] ?? `\\u${c.toString(16).padStart(4, '0')}`);
        last = i + 1;
      }
    } else if (c === 0x22) inString = true;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * Parse a request body as JSON, tolerant the way clients need: invalid UTF-8 is decoded lossily and
 * raw control characters inside strings are accepted. Nesting deeper than serde_json's limit is a
 * 400 here, before anything walks the body recursively.
 */
export function parseJsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  const parsed = parseTolerant(text);
  // Each level opens and closes a bracket: a text this short cannot nest past the limit.
  if (text.length >= SHALLOW_CHARS) checkJsonDepth(parsed);
  restoreExactIds(parsed, text);
  return parsed;
}

function parseTolerant(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (first) {
    if (RAW_CONTROL.test(text)) {
      try {
        return JSON.parse(escapeControlCharsInStrings(text));
      } catch {
        // fall through to report the original error
      }
    }
    throw new ValidationError(
      `Failed to deserialize the JSON body into the target type: ${(first as Error).message}`,
    );
  }
}

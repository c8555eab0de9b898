// What to send: conversations of one or more turns, synthetic or read from a Mooncake trace.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/index.js';
import { blockText, wordsText } from './prompt-text.js';
import { parseLength, seededRandom, type LengthDistribution } from './random.js';

/** One request's new text and its max_tokens; later turns resend the history before it. */
export interface TurnPlan {
  readonly text: string;
  readonly maxTokens: number;
}

export interface Conversation {
  readonly turns: readonly TurnPlan[];
  /** When to start it, in ms from the run's start (trace replay); absent: the schedule decides. */
  readonly atMs?: number;
}

/** An endless or finite source of conversations; `undefined` when a trace is exhausted. */
export interface Workload {
  readonly kind: 'synthetic' | 'trace';
  next(): Conversation | undefined;
  /** Requests the whole source holds, when finite. */
  readonly size?: number;
}

export interface SyntheticShape {
  readonly inputTokens: string;
  readonly outputTokens: string;
  readonly sharedPrefixRatio: number;
  readonly sessionTurns: number;
  readonly seed: number;
}

/** Synthetic conversations; the first turn of each starts with the common prefix's share. */
export function syntheticWorkload(shape: SyntheticShape): Workload {
  const random = seededRandom(shape.seed);
  const input: LengthDistribution = parseLength(shape.inputTokens, '--input-tokens');
  const output: LengthDistribution = parseLength(shape.outputTokens, '--output-tokens');
  // Words of the common prefix, drawn from their own seed so the prefix does not depend on the lengths drawn.
  const prefixRandom = seededRandom(shape.seed ^ 0x5eed);
  let prefix = '';
  let prefixWords = 0;
  const sharedPrefix = (words: number): string => {
    if (words > prefixWords) {
      prefix += wordsText(words - prefixWords, prefixRandom);
      prefixWords = words;
    }
    return prefix.slice(0, nthSpace(prefix, words));
  };
  return {
    kind: 'synthetic',
    next() {
      const turns: TurnPlan[] = [];
      for (let t = 0; t < shape.sessionTurns; t++) {
        const length = input(random);
        const shared = t === 0 ? Math.round(length * shape.sharedPrefixRatio) : 0;
        turns.push({ text: sharedPrefix(shared) + wordsText(length - shared, random), maxTokens: output(random) });
      }
      return { turns };
    },
  };
}

/** Index where the text's first `words` space-led words end. */
function nthSpace(text: string, words: number): number {
  let at = 0;
  for (let i = 0; i < words; i++) {
    at = text.indexOf(' ', at + 1);
    if (at === -1) return text.length;
  }
  return at;
}

interface TraceLine {
  readonly timestamp: number;
  readonly input_length: number;
  readonly output_length: number;
  readonly hash_ids?: readonly number[];
}

/**
 * A Mooncake trace: one request per line, started at `timestamp` ms (divided by `speedup`), its
 * prompt the texts of its hash ids (`blockSize` tokens each, the last one cut to `input_length`).
 */
export function traceWorkload(file: string, blockSize: number, speedup: number): Workload {
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const conversations = lines.map((line, i) => toConversation(parseTraceLine(line, `${file}:${i + 1}`), blockSize, speedup));
  if (conversations.length === 0) throw new ConfigError(`--trace ${file} holds no requests`);
  const first = conversations.reduce((min, c) => Math.min(min, c.atMs!), Infinity);
  let next = 0;
  return {
    kind: 'trace',
    size: conversations.length,
    next() {
      const conversation = conversations[next++];
      return conversation === undefined ? undefined : { ...conversation, atMs: conversation.atMs! - first };
    },
  };
}

function parseTraceLine(line: string, where: string): TraceLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ConfigError(`--trace ${where}: not a JSON object`);
  }
  const v = value as Record<string, unknown>;
  const count = (key: string) => {
    if (!Number.isInteger(v[key]) || (v[key] as number) < 1) throw new ConfigError(`--trace ${where}: '${key}' must be a positive integer`);
  };
  count('input_length');
  count('output_length');
  if (typeof v.timestamp !== 'number' || !Number.isFinite(v.timestamp)) throw new ConfigError(`--trace ${where}: 'timestamp' must be a number (ms)`);
  if (v.hash_ids !== undefined && !(Array.isArray(v.hash_ids) && v.hash_ids.every(Number.isInteger))) {
    throw new ConfigError(`--trace ${where}: 'hash_ids' must be an array of integers`);
  }
  return v as unknown as TraceLine;
}

function toConversation(line: TraceLine, blockSize: number, speedup: number): Conversation {
  const ids = line.hash_ids ?? [];
  let text = '';
  let left = line.input_length;
  for (const id of ids) {
    if (left <= 0) break;
    text += blockText(id, blockSize, left);
    left -= blockSize;
  }
  // Tokens beyond the hash ids' blocks are the request's own.
  if (left > 0) text += wordsText(left, seededRandom(line.input_length * 31 + line.timestamp));
  return { turns: [{ text, maxTokens: line.output_length }], atMs: line.timestamp / speedup };
}

// What every tokenizer of one tokenizer.json can share: the native core and the tables of the fast
// encoder (read-only once built), and the special tokens prompts are cut at. Loading them costs
// ~1.5 s of CPU for a 150k-token vocab, paid once per file version while a tokenizer holds them: several
// models or workers on one tokenizer (serve's frontend and mockers, a frontend's models) load it once.

import { readFileSync, statSync } from 'node:fs';
import { Tokenizer } from 'tokenizers';
import { fastBpeTables, type FastBpeTables } from '../fast-bpe/index.js';
import { boundaryTokensOf, type BoundaryToken } from './prefix-cache.js';

/** Read from the file's JSON at most once, both together (the JSON itself is not kept). */
interface FromJson {
  fast: FastBpeTables;
  /** Or why they could not be read (only the prefix cache needs them). */
  boundaryTokens: BoundaryToken[] | Error;
}

export class TokenizerFile {
  readonly native: Tokenizer;
  private fromJson: FromJson | undefined;

  constructor(private readonly path: string) {
    this.native = Tokenizer.fromFile(path);
  }

  /** The fast encoder's tables, or why it does not apply; each tokenizer builds its own encoder over them. */
  get fastTables(): FastBpeTables {
    return this.json().fast;
  }

  /** The special tokens of the file (the prefix cache cuts prompts at them). */
  get boundaryTokens(): BoundaryToken[] {
    const tokens = this.json().boundaryTokens;
    if (tokens instanceof Error) throw tokens;
    return tokens;
  }

  private json(): FromJson {
    if (!this.fromJson) {
      const json = JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, unknown>;
      this.fromJson = { fast: fastBpeTables(json), boundaryTokens: boundaryTokensOrError(json) };
    }
    return this.fromJson;
  }
}

function boundaryTokensOrError(json: Record<string, unknown>): BoundaryToken[] | Error {
  try {
    return boundaryTokensOf(json);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Loaded files by path, size and mtime (a file rewritten in place is loaded again), held only while in use. */
const loaded = new Map<string, WeakRef<TokenizerFile>>();

/** The shared load of the tokenizer.json at `path`. */
export function tokenizerFile(path: string): TokenizerFile {
  const { size, mtimeMs } = statSync(path);
  const key = `${path}\0${size}\0${mtimeMs}`;
  const cached = loaded.get(key)?.deref();
  if (cached) return cached;
  const file = new TokenizerFile(path);
  loaded.set(key, new WeakRef(file));
  return file;
}

// What every tokenizer of one tokenizer.json can share: the native core and the tables of the fast
// encoder (read-only once built), and the special tokens prompts are cut at. Loading them costs
// ~1.5 s of CPU for a 150k-token vocab, paid once per file version while a tokenizer holds them: several
// models or workers on one tokenizer (serve's frontend and mockers, a frontend's models) load it once.
// The tables can be built beforehand on a thread (`prepareTokenizerFile`); the native core's load
// (~0.65 s) is one synchronous call of its binding and stays on the caller's thread.

import { readFileSync, statSync } from 'node:fs';
import { Tokenizer } from 'tokenizers';
import type { FastBpeTables } from '../fast-bpe/index.js';
import type { TokenTable } from '../../postprocess/token-table.js';
import { buildFileTables, fromJson, type FileTablesJob, type FromJson } from './file-tables.js';
import type { BoundaryToken } from './prefix-cache.js';

export class TokenizerFile {
  readonly native: Tokenizer;
  private fromJson: FromJson | undefined;

  constructor(private readonly path: string, prepared?: FromJson) {
    this.native = Tokenizer.fromFile(path);
    this.fromJson = prepared;
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
    this.fromJson ??= fromJson(JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, unknown>);
    return this.fromJson;
  }
}

/** Loaded files by path, size and mtime (a file rewritten in place is loaded again), held only while in use. */
const loaded = new Map<string, WeakRef<TokenizerFile>>();
/** Tables built beforehand, until the file's load takes them or their holder lets them go. */
const prepared = new Map<string, FromJson>();

/** A file's path, size and mtime: a file rewritten in place gets a new key. */
export function fileVersion(path: string): string {
  const { size, mtimeMs } = statSync(path);
  return `${path}\0${size}\0${mtimeMs}`;
}

/** Whether a load of this version of the file is in use (its tables are built, or will be from its JSON). */
export function tokenizerFileLoaded(path: string): boolean {
  return loaded.get(fileVersion(path))?.deref() !== undefined;
}

/** The shared load of the tokenizer.json at `path`. */
export function tokenizerFile(path: string): TokenizerFile {
  const key = fileVersion(path);
  const cached = loaded.get(key)?.deref();
  if (cached) return cached;
  for (const [k, ref] of loaded) if (ref.deref() === undefined) loaded.delete(k);
  const file = new TokenizerFile(path, prepared.get(key));
  prepared.delete(key);
  loaded.set(key, new WeakRef(file));
  return file;
}

/** Tables built beforehand for the next load of a file; `release` once that load happened (or will not). */
export interface PreparedTokenizerFile {
  /** The token table of the tokenizer.json (and tokenizer_config.json) as read then. */
  readonly tokenTable: TokenTable;
  release(): void;
}

/**
 * Builds the tables of a tokenizer.json on a thread so the next `tokenizerFile` of that version
 * takes them instead of building them on the event loop. Rejects as reading the files would.
 */
export async function prepareTokenizerFile(job: FileTablesJob): Promise<PreparedTokenizerFile> {
  const key = fileVersion(job.tokenizerJsonPath);
  const { tokenTable, ...shared } = await buildFileTables(job);
  if (!loaded.get(key)?.deref()) prepared.set(key, shared);
  return {
    tokenTable,
    release: () => {
      if (prepared.get(key) === shared) prepared.delete(key);
    },
  };
}

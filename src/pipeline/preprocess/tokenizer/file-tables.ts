// What is built from a tokenizer.json's JSON rather than by the native core: the fast encoder's
// tables, the special tokens the prefix cache cuts at, and the token table the detokenizer reads.
// For a 150k vocabulary that is ~1.3 s of CPU (one parse, then the tables); built on a thread and
// handed over as moved arrays, a model going live no longer stalls every stream of the process
// for it (docs/design-notes.md, "A model going live").

import { readFileSync } from 'node:fs';
import { JobThread } from '../../job-thread.js';
import { TokenTable, type TokenTableParts } from '../../postprocess/token-table.js';
import { fastBpeTables, fastBpeTablesBuffers, fastBpeTablesFromParts, fastBpeTablesToParts, type FastBpeTables, type FastBpeTablesParts } from '../fast-bpe/index.js';
import { boundaryTokensOf, type BoundaryToken } from './prefix-cache.js';

export interface FileTablesJob {
  tokenizerJsonPath: string;
  /** tokenizer_config.json, whose `added_tokens_decoder` the token table reads too. */
  tokenizerConfigPath?: string;
}

/** What the tokenizer file shares among the tokenizers of one tokenizer.json (see tokenizer-file.ts). */
export interface FromJson {
  fast: FastBpeTables;
  /** Or why they could not be read (only the prefix cache needs them). */
  boundaryTokens: BoundaryToken[] | Error;
}

export interface FileTables extends FromJson {
  tokenTable: TokenTable;
}

/** As they cross between threads. */
interface FileTablesParts {
  fast: FastBpeTablesParts;
  boundaryTokens: BoundaryToken[] | { error: string };
  tokenTable: TokenTableParts;
}

/** The shareable part of a parsed tokenizer.json. */
export function fromJson(json: Record<string, unknown>): FromJson {
  return { fast: fastBpeTables(json), boundaryTokens: boundaryTokensOrError(json) };
}

function boundaryTokensOrError(json: Record<string, unknown>): BoundaryToken[] | Error {
  try {
    return boundaryTokensOf(json);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** The thread's side: one read and parse of each file, every table built from it. */
export function buildFileTablesParts({ tokenizerJsonPath, tokenizerConfigPath }: FileTablesJob): FileTablesParts {
  const json = JSON.parse(readFileSync(tokenizerJsonPath, 'utf8')) as Record<string, unknown>;
  const config = tokenizerConfigPath ? (JSON.parse(readFileSync(tokenizerConfigPath, 'utf8')) as unknown) : undefined;
  const { fast, boundaryTokens } = fromJson(json);
  return {
    fast: fastBpeTablesToParts(fast),
    boundaryTokens: boundaryTokens instanceof Error ? { error: boundaryTokens.message } : boundaryTokens,
    tokenTable: TokenTable.fromJson(json, config).toParts(),
  };
}

/** The arrays of `parts` that move to the event loop's thread rather than copy. */
export function fileTablesBuffers(parts: FileTablesParts): ArrayBuffer[] {
  const { pool, offsets, flags } = parts.tokenTable;
  return [...fastBpeTablesBuffers(parts.fast), ...[pool, offsets, flags].map((a) => a.buffer as ArrayBuffer)];
}

const thread = new JobThread<FileTablesJob, FileTablesParts>(new URL('./file-tables-worker.js', import.meta.url));

/** Every table of the files, built on a thread; rejects as reading or parsing the files would. */
export async function buildFileTables(job: FileTablesJob): Promise<FileTables> {
  const parts = await thread.run(job);
  return {
    fast: fastBpeTablesFromParts(parts.fast),
    boundaryTokens: Array.isArray(parts.boundaryTokens) ? parts.boundaryTokens : new Error(parts.boundaryTokens.error),
    tokenTable: TokenTable.fromParts(parts.tokenTable),
  };
}

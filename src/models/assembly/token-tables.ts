// Token tables are the slow part of loading a model (about a second for a 150k vocabulary) and
// never change: a process builds each once, so `serve`'s frontend and workers share one, and a model
// that leaves and comes back is not rebuilt. A model discovered by a frontend has them built on a
// thread first (`prepareTokenTables`), so its arrival does not stall the streams of the others.
import { fileVersion, prepareTokenizerFile, tokenizerFileLoaded, TokenTable } from '../../pipeline/index.js';

const tables = new Map<string, TokenTable>();

/** Both files' versions: either edited in place gets a new table. */
function tableKey(tokenizerJsonPath: string, tokenizerConfigPath?: string): string {
  return `${fileVersion(tokenizerJsonPath)}|${tokenizerConfigPath ? fileVersion(tokenizerConfigPath) : ''}`;
}

/** TokenTable.fromFile, once per version of the files. */
export function sharedTokenTable(tokenizerJsonPath: string, tokenizerConfigPath?: string): TokenTable {
  const key = tableKey(tokenizerJsonPath, tokenizerConfigPath);
  let table = tables.get(key);
  if (!table) tables.set(key, (table = TokenTable.fromFile(tokenizerJsonPath, tokenizerConfigPath)));
  return table;
}

/**
 * Builds off the event loop what `sharedTokenTable` and the model's tokenizer would build on it;
 * call the returned release once the model was assembled (or was not). Nothing to build: a no-op.
 */
export async function prepareTokenTables(tokenizerJsonPath: string, tokenizerConfigPath?: string): Promise<() => void> {
  const key = tableKey(tokenizerJsonPath, tokenizerConfigPath);
  if (tables.has(key) && tokenizerFileLoaded(tokenizerJsonPath)) return () => undefined;
  const prepared = await prepareTokenizerFile({ tokenizerJsonPath, tokenizerConfigPath });
  if (!tables.has(key)) tables.set(key, prepared.tokenTable);
  return prepared.release;
}

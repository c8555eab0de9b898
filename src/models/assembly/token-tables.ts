// Token tables are the slow part of loading a model (about a second for a 150k vocabulary) and
// never change: a process builds each once, so `serve`'s frontend and workers share one, and a model
// that leaves and comes back is not rebuilt.
import { statSync } from 'node:fs';
import { TokenTable } from '../../pipeline/index.js';

const tables = new Map<string, TokenTable>();

/** `path:size:mtime`: a file edited in place gets a new table. */
function fileVersion(path: string | undefined): string {
  if (!path) return '';
  const st = statSync(path);
  return `${path}:${st.size}:${st.mtimeMs}`;
}

/** TokenTable.fromFile, once per version of the files. */
export function sharedTokenTable(tokenizerJsonPath: string, tokenizerConfigPath?: string): TokenTable {
  const key = `${fileVersion(tokenizerJsonPath)}|${fileVersion(tokenizerConfigPath)}`;
  let table = tables.get(key);
  if (!table) tables.set(key, (table = TokenTable.fromFile(tokenizerJsonPath, tokenizerConfigPath)));
  return table;
}

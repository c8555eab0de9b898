// A Triton-layout model repository: `<dir>/<model>/config.pbtxt` plus numeric version folders.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { protoRoot } from '../proto-files.js';
import type { ModelConfigMessage } from '../wire-types.js';
import { parseTextFormat } from './pbtxt.js';

export interface RepositoryEntry {
  /** The model name: the config's `name`, else the folder name. */
  name: string;
  folder: string;
  config: ModelConfigMessage;
  versions: string[];
}

export class ModelRepository {
  private entries = new Map<string, RepositoryEntry>();

  constructor(readonly dir: string) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`model repository '${dir}' is not a directory`);
    this.rescan();
  }

  /** Re-reads every folder; a folder whose config does not parse fails the scan with its error. */
  rescan(): void {
    const next = new Map<string, RepositoryEntry>();
    for (const folder of readdirSync(this.dir).sort()) {
      const entry = this.readFolder(folder);
      if (entry) next.set(entry.name, entry);
    }
    this.entries = next;
  }

  /** Re-reads one model (by model or folder name); undefined when the repository has no such model. */
  reload(name: string): RepositoryEntry | undefined {
    const folder = this.entries.get(name)?.folder ?? name;
    const entry = this.readFolder(folder);
    if (entry) this.entries.set(entry.name, entry);
    return entry;
  }

  get(name: string): RepositoryEntry | undefined {
    return this.entries.get(name);
  }

  list(): RepositoryEntry[] {
    return [...this.entries.values()];
  }

  private readFolder(folder: string): RepositoryEntry | undefined {
    const full = path.join(this.dir, folder);
    const configPath = path.join(full, 'config.pbtxt');
    if (!existsSync(full) || !statSync(full).isDirectory() || !existsSync(configPath)) return undefined;
    const type = protoRoot().lookupType('inference.ModelConfig');
    let config: ModelConfigMessage;
    try {
      config = parseTextFormat(type, readFileSync(configPath, 'utf8')) as ModelConfigMessage;
    } catch (err) {
      throw new Error(`${configPath}: ${(err as Error).message}`);
    }
    if (!config.name) config.name = folder;
    const versions = readdirSync(full)
      .filter((v) => /^\d+$/.test(v) && statSync(path.join(full, v)).isDirectory())
      .sort((a, b) => Number(a) - Number(b));
    return { name: config.name, folder, config, versions };
  }
}

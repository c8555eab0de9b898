// --api-key / DYN_API_KEYS / --api-keys-file: the frontend's key set, kept current while it runs.
// The file is re-read when it changes: fs.watch on its folder (editors replace files rather than
// write them in place) plus a periodic stat check for file systems where watch stays silent. The
// stat follows symlinks, so a mounted Kubernetes secret is followed through its updates.
// Keys are never logged; only their count is.

import { readFileSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, type Config } from '../config/index.js';
import type { Logger } from '../observability/index.js';
import { ApiKeys } from '../protocols/index.js';

/** How often the file's stat is compared when no watch event came. */
const STAT_INTERVAL_MS = 2000;

/** One key per line; blank lines and lines starting with `#` are skipped. */
export function parseKeysFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

const signature = (s: Stats): string => `${s.ino}:${s.size}:${s.mtimeMs}`;

export class ApiKeyStore {
  readonly keys = new ApiKeys();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private seen = '';

  constructor(
    private readonly fixed: readonly string[],
    file: string | undefined,
    private readonly logger: Logger,
  ) {
    this.keys.replace(fixed);
    if (file === undefined) return;
    try {
      this.load(file);
    } catch (err) {
      throw new ConfigError(`--api-keys-file '${file}' cannot be read: ${(err as Error).message}`);
    }
    this.watch(file);
  }

  close(): void {
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    this.watcher = null;
    this.timer = null;
  }

  private load(file: string): void {
    const stats = statSync(file);
    const fileKeys = parseKeysFile(readFileSync(file, 'utf8'));
    this.seen = signature(stats);
    this.keys.replace([...this.fixed, ...fileKeys]);
  }

  /** Re-reads the file if it changed; a file that vanished or cannot be read keeps the last keys (fail closed). */
  private refresh(file: string): void {
    let stats: Stats;
    try {
      stats = statSync(file);
    } catch (err) {
      if (this.seen !== 'missing') this.logger.warn({ file, err: (err as Error).message }, 'API keys file is gone; keeping the last keys');
      this.seen = 'missing';
      return;
    }
    if (signature(stats) === this.seen) return;
    try {
      this.load(file);
      this.logger.info({ file, keys: this.keys.size }, 'API keys reloaded');
    } catch (err) {
      this.logger.warn({ file, err: (err as Error).message }, 'API keys file cannot be read; keeping the last keys');
    }
  }

  private watch(file: string): void {
    try {
      // Any change in the folder: a Kubernetes secret update swaps a `..data` symlink, not the file.
      this.watcher = watch(dirname(file), { persistent: false }, () => this.refresh(file));
      this.watcher.on('error', () => undefined);
    } catch {
      // The stat check below still notices changes.
    }
    this.timer = setInterval(() => this.refresh(file), STAT_INTERVAL_MS);
    this.timer.unref();
  }
}

/** The store for a frontend's config. */
export function apiKeyStore(config: Config, logger: Logger): ApiKeyStore {
  return new ApiKeyStore(config.apiKey, config.apiKeysFile, logger);
}

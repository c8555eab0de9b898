// --api-key / DYN_API_KEYS / --api-keys-file: the frontend's key set, kept current while it runs.
// The file is re-read when it changes (watched-file.ts), so a mounted Kubernetes secret is
// followed through its updates. Keys are never logged; only their count is.

import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config/index.js';
import type { Logger } from '../observability/index.js';
import { ApiKeys } from '../protocols/index.js';
import { WatchedFile } from './watched-file.js';

/** One key per line; blank lines and lines starting with `#` are skipped. */
export function parseKeysFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

export class ApiKeyStore {
  readonly keys = new ApiKeys();
  private watched: WatchedFile | null = null;

  constructor(
    private readonly fixed: readonly string[],
    file: string | undefined,
    private readonly logger: Logger,
  ) {
    this.keys.replace(fixed);
    if (file === undefined) return;
    // A file that vanished or cannot be read keeps the last keys (fail closed).
    const watched = new WatchedFile(file, {
      changed: () => {
        try {
          this.load(file);
          this.logger.info({ file, keys: this.keys.size }, 'API keys reloaded');
        } catch (err) {
          this.logger.warn({ file, err: (err as Error).message }, 'API keys file cannot be read; keeping the last keys');
        }
      },
      missing: (err) => this.logger.warn({ file, err: err.message }, 'API keys file is gone; keeping the last keys'),
    });
    try {
      watched.markRead();
      this.load(file);
    } catch (err) {
      throw new ConfigError(`--api-keys-file '${file}' cannot be read: ${(err as Error).message}`);
    }
    watched.start();
    this.watched = watched;
  }

  close(): void {
    this.watched?.close();
    this.watched = null;
  }

  private load(file: string): void {
    this.keys.replace([...this.fixed, ...parseKeysFile(readFileSync(file, 'utf8'))]);
  }
}

/** The store for a frontend's config. */
export function apiKeyStore(config: Config, logger: Logger): ApiKeyStore {
  return new ApiKeyStore(config.apiKey, config.apiKeysFile, logger);
}

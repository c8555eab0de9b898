// Which store a frontend keeps stored responses in (--response-store), for the number of processes
// it runs: every process of a pool must find every response, whichever process stored it, so a
// pool shares its store. Unset, one process keeps them in memory and a pool in the host's
// directory; memory is refused for a pool.
import { ConfigError, type Config } from '../config/index.js';
import { defaultFileStoreDir } from '../frontends/http/index.js';
import type { Logger } from '../observability/index.js';
import type { ResponseStoreName } from '../protocols/index.js';

export interface ResponseStoreChoice {
  name: ResponseStoreName;
  /** Why, for the startup log. */
  reason: string;
}

/** The store of a frontend running `processes` processes; a ConfigError for memory with more than one. */
export function responseStoreChoice(config: Config, processes: number): ResponseStoreChoice {
  const set = config.responseStore;
  if (set === 'memory' && processes > 1) {
    throw new ConfigError(
      `--response-store memory keeps responses in one process, and this frontend runs ${processes} (--http-workers): a response stored by one would be unknown to the others. ` +
        'Use --response-store file (shared by the processes of this host), etcd or nats, or --http-workers 1',
    );
  }
  if (set !== undefined) return { name: set, reason: '--response-store' };
  return processes > 1 ? { name: 'file', reason: `${processes} frontend processes share one store` } : { name: 'memory', reason: 'one frontend process' };
}

/** The config with the store chosen for `processes` processes, the choice logged (once, at startup). */
export function withResponseStore(config: Config, processes: number, logger: Logger): Config {
  const { name, reason } = responseStoreChoice(config, processes);
  const where = name === 'file' ? { path: config.responseStorePath ?? defaultFileStoreDir() } : {};
  logger.info({ response_store: name, reason, ...where }, 'stored responses kept in the response store');
  return { ...config, responseStore: name };
}

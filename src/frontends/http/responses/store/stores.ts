// The response stores by --response-store name: a row per name that imports its store's module
// when called, so a store's packages load only when it is chosen. The compiler refuses a name
// without a row. Stores not built yet fail by name (the config refuses them before that).
// memory: this process only; sqlite: a file shared by the frontend processes of a host.

import type { ResponseStoreName } from '../../../../protocols/index.js';
import type { ResponseStore, ResponseStoreOptions, ResponseStoreSettings } from './response-store.js';

type StoreMaker = (settings: ResponseStoreSettings) => ResponseStore;

const notBuilt = (name: string, what: string) => async (): Promise<StoreMaker> => {
  throw new Error(`The ${name} response store (${what}) is not built yet: use --response-store memory`);
};

export const RESPONSE_STORES: { readonly [N in ResponseStoreName]: () => Promise<StoreMaker> } = {
  memory: async () => {
    const { MemoryResponseStore } = await import('./memory-store.js');
    return (settings) => new MemoryResponseStore(settings);
  },
  sqlite: async () => {
    const { SqliteResponseStore } = await import('./sqlite-store.js');
    return (settings) => new SqliteResponseStore(settings);
  },
  etcd: notBuilt('etcd', 'shared by a cluster'),
  nats: notBuilt('nats', 'a NATS KV bucket shared by a cluster'),
};

/** The store the options name, made. */
export async function openResponseStore(options: ResponseStoreOptions): Promise<ResponseStore> {
  return (await RESPONSE_STORES[options.name]())(options);
}

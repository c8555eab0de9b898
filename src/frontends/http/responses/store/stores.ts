// The response stores by --response-store name: a row per name that imports its store's module
// when called, so a store's packages load only when it is chosen. The compiler refuses a name
// without a row. memory: this process only; file: a directory shared by the frontend processes of
// a host; etcd and nats: shared by the frontends of a cluster.

import type { ResponseStoreName } from '../../../../protocols/index.js';
import type { ResponseStore, ResponseStoreOptions, ResponseStoreSettings } from './response-store.js';

/** Opens a store: a shared one connects (or makes its directory) first, and fails when it cannot. */
type StoreOpener = (settings: ResponseStoreSettings) => Promise<ResponseStore>;

export const RESPONSE_STORES: { readonly [N in ResponseStoreName]: () => Promise<StoreOpener> } = {
  memory: async () => {
    const { MemoryResponseStore } = await import('./memory-store.js');
    return async (settings) => new MemoryResponseStore(settings);
  },
  file: async () => (await import('./file-store.js')).FileResponseStore.open,
  etcd: async () => (await import('./etcd-store.js')).EtcdResponseStore.open,
  nats: async () => (await import('./nats-store.js')).NatsResponseStore.open,
};

/** The store the options name, open. */
export async function openResponseStore(options: ResponseStoreOptions): Promise<ResponseStore> {
  return (await RESPONSE_STORES[options.name]())(options);
}

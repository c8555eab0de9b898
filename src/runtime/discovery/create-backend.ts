import type { DiscoveryBackend, DiscoveryLogger } from './backend.js';
import { FileDiscoveryBackend } from './file-backend.js';
import { MemDiscoveryBackend } from './mem-backend.js';

export type DiscoveryBackendName = 'mem' | 'file' | 'etcd' | 'kubernetes';

export interface DiscoveryBackendOptions {
  etcdEndpoints: string[];
  /** `DYN_FILE_KV`. */
  fileKvRoot?: string;
  leaseTtlSecs: number;
  /** mem only: backends with the same scope share one store. */
  memScope?: string;
  /** kubernetes: where POD_NAME, POD_UID and POD_NAMESPACE are read from (the Downward API files win). */
  env?: Record<string, string | undefined>;
  /** kubernetes: `KUBECONFIG`; unset: ~/.kube/config, else the in-cluster service account. */
  kubeconfig?: string;
  logger?: DiscoveryLogger;
}

// etcd3 and @kubernetes/client-node cost ~0.3 s and ~0.7 s of CPU to load: their backends are
// imported only when chosen. The import runs at startup (runtime creation), so a missing package
// still fails the start, never a later request.
const BACKENDS: Record<DiscoveryBackendName, (opts: DiscoveryBackendOptions) => Promise<DiscoveryBackend>> = {
  mem: async (opts) => new MemDiscoveryBackend(opts.memScope),
  file: async (opts) => new FileDiscoveryBackend({ root: opts.fileKvRoot, leaseTtlSecs: opts.leaseTtlSecs }),
  etcd: async (opts) => {
    const { EtcdDiscoveryBackend } = await import('./etcd-backend.js');
    return new EtcdDiscoveryBackend({ endpoints: opts.etcdEndpoints, leaseTtlSecs: opts.leaseTtlSecs });
  },
  kubernetes: async (opts) => {
    const { KubeDiscoveryBackend } = await import('./kube-backend.js');
    return new KubeDiscoveryBackend({ env: opts.env ?? {}, kubeconfig: opts.kubeconfig, logger: opts.logger });
  },
};

export function createDiscoveryBackend(name: DiscoveryBackendName, opts: DiscoveryBackendOptions): Promise<DiscoveryBackend> {
  return BACKENDS[name](opts);
}

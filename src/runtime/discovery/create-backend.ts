import type { DiscoveryBackend, DiscoveryLogger } from './backend.js';
import { EtcdDiscoveryBackend } from './etcd-backend.js';
import { FileDiscoveryBackend } from './file-backend.js';
import { KubeDiscoveryBackend } from './kube-backend.js';
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

export function createDiscoveryBackend(name: DiscoveryBackendName, opts: DiscoveryBackendOptions): DiscoveryBackend {
  switch (name) {
    case 'mem':
      return new MemDiscoveryBackend(opts.memScope);
    case 'file':
      return new FileDiscoveryBackend({ root: opts.fileKvRoot, leaseTtlSecs: opts.leaseTtlSecs });
    case 'etcd':
      return new EtcdDiscoveryBackend({ endpoints: opts.etcdEndpoints, leaseTtlSecs: opts.leaseTtlSecs });
    case 'kubernetes':
      return new KubeDiscoveryBackend({ env: opts.env ?? {}, kubeconfig: opts.kubeconfig, logger: opts.logger });
  }
}

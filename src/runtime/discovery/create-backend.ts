import type { DiscoveryBackendName } from '../../protocols/index.js';
import type { PartTable } from '../part-table.js';
import type { PlaneStatus } from '../plane-status.js';
import type { DiscoveryBackend, DiscoveryLogger } from './backend.js';

export type { DiscoveryBackendName };

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
  /** Where a backend with a server (etcd) reports losing and regaining it. */
  planes?: PlaneStatus;
  /** etcd: a lease that expired is granted again under its id with its keys (see etcd-backend.ts). */
  regrantExpiredLeases?: boolean;
}

/**
 * How far a backend's registrations reach. Every peer of a single-host backend (one process's
 * memory, one host's directory) runs on this host, so its processes listen on loopback unless told
 * otherwise; a cluster backend's peers are elsewhere, so its listeners bind where configured.
 */
export type DiscoveryReach = 'host' | 'cluster';

export const DISCOVERY_REACH: { readonly [D in DiscoveryBackendName]: DiscoveryReach } = {
  mem: 'host',
  file: 'host',
  etcd: 'cluster',
  kubernetes: 'cluster',
};

// The index does not re-export the etcd and Kubernetes backends, so etcd3 and @kubernetes/client-node
// (~0.3 s and ~0.7 s of CPU to load) load only through their rows here, when chosen.
export const DISCOVERY_BACKENDS: PartTable<DiscoveryBackendName, DiscoveryBackendOptions, DiscoveryBackend> = {
  mem: async () => {
    const { MemDiscoveryBackend } = await import('./mem-backend.js');
    return (opts) => new MemDiscoveryBackend(opts.memScope);
  },
  file: async () => {
    const { FileDiscoveryBackend } = await import('./file-backend.js');
    return (opts) => new FileDiscoveryBackend({ root: opts.fileKvRoot, leaseTtlSecs: opts.leaseTtlSecs });
  },
  etcd: async () => {
    const { EtcdDiscoveryBackend } = await import('./etcd-backend.js');
    return (opts) =>
      new EtcdDiscoveryBackend({
        endpoints: opts.etcdEndpoints,
        leaseTtlSecs: opts.leaseTtlSecs,
        connection: opts.planes?.connection('discovery', `etcd at ${opts.etcdEndpoints.join(',')}`),
        regrantExpiredLeases: opts.regrantExpiredLeases,
      });
  },
  kubernetes: async () => {
    const { KubeDiscoveryBackend } = await import('./kube-backend.js');
    return (opts) => {
      const planes = opts.planes;
      return new KubeDiscoveryBackend({
        env: opts.env ?? {},
        kubeconfig: opts.kubeconfig,
        logger: opts.logger,
        connection: planes && ((what) => planes.connection('discovery', what)),
      });
    };
  },
};

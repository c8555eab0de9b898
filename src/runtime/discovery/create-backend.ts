import { NotImplementedError } from '../../protocols/index.js';
import type { DiscoveryBackend } from './backend.js';
import { EtcdDiscoveryBackend } from './etcd-backend.js';
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
      throw new NotImplementedError(
        'kubernetes discovery (DynamoWorkerMetadata CRs + EndpointSlices) is not available yet in this build; use etcd or file',
      );
  }
}

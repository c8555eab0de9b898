// Kubernetes discovery (reference/operate-faults.md §1): workers publish their records in a
// DynamoWorkerMetadata CR owned by their pod (server-side apply, field manager `dynamo-worker`);
// readers list and watch those CRs and the labelled EndpointSlices of their own namespace and see
// the records of every worker both ready and described, as the key-value view the other backends
// give. Instance ids are the hash of the CR name, as upstream, so ids agree across implementations.
import { delimiter } from 'node:path';
import {
  CustomObjectsApi,
  DiscoveryV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import { ServiceUnreachableError } from '../../protocols/index.js';
import { KeyExistsError, type DiscoveryBackend, type DiscoveryLogger, type Lease, type StoreEventHandler } from './backend.js';
import { kubeInstanceId, podIdentity, type PodIdentity } from './kube-identity.js';
import { DWM, FIELD_MANAGER, emptyMetadata, metadataSlot, workerMetadataObject, type DiscoveryMetadata } from './kube-metadata.js';
import { Reflector, type KubeList } from './kube-reflector.js';
import { RoutableWorkers, type EndpointSliceLike, type WorkerMetadataLike } from './kube-routable.js';
import { WatchedSet } from './watched-set.js';
import type { PlaneConnection } from '../plane-status.js';

/** The labels the operator puts on discoverable workers' Services (EndpointSlices inherit them). */
export const DISCOVERY_LABEL_SELECTOR = 'nvidia.com/dynamo-discovery-backend=kubernetes,nvidia.com/dynamo-discovery-enabled=true';

export interface KubeBackendOptions {
  /** POD_NAME, POD_UID, POD_NAMESPACE (the Downward API files win when present). */
  env: Record<string, string | undefined>;
  /** `KUBECONFIG` (paths separated like PATH); unset: ~/.kube/config, else the in-cluster service account. */
  kubeconfig?: string;
  /** The Downward API directory; /etc/podinfo. */
  podinfoDir?: string;
  logger?: DiscoveryLogger;
  /** Reports a watch's loss and return as a discovery outage (logged once each, in /health and /metrics). */
  connection?: (what: string) => PlaneConnection;
}

function loadKubeConfig(kubeconfig: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  const files = (kubeconfig ?? '').split(delimiter).filter(Boolean);
  if (files.length === 0) {
    kc.loadFromDefault();
    return kc;
  }
  kc.loadFromFile(files[0]!);
  for (const file of files.slice(1)) {
    const more = new KubeConfig();
    more.loadFromFile(file);
    kc.mergeConfig(more);
  }
  return kc;
}

/** An API error as one readable line: the status and the server's message, or the network error. */
function describe(err: unknown): string {
  const e = err as { code?: unknown; body?: unknown; message?: string; statusCode?: number };
  if (typeof e.code === 'number') {
    let message = '';
    try {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      message = (body as { message?: string } | undefined)?.message ?? '';
    } catch {
      message = String(e.body ?? '');
    }
    return `HTTP ${e.code}${message ? `: ${message}` : ''}`;
  }
  if (e.statusCode) return `HTTP ${e.statusCode}: ${e.message}`;
  return (e.message ?? String(err)).replace(/^request to \S+ failed, reason: /, '');
}

/** What to do about a failed call, by its HTTP status (none: the server was not reached). */
function kubeFix(err: unknown): string {
  const status = (err as { code?: unknown }).code;
  if (status === 401 || status === 403) return "give the pod's service account the RBAC of deploy/base/rbac-discovery.yaml (docs/kubernetes.md)";
  if (status === 404) return 'install the DynamoWorkerMetadata CRD (nvidia.com/v1alpha1, dynamoworkermetadatas) in the cluster';
  return 'check KUBECONFIG (or the in-cluster service account), or use --discovery-backend etcd';
}

/** The records of one CR, applied whole on every change (as upstream), one write at a time. */
class KubeLease implements Lease {
  readonly id: bigint;
  private data: DiscoveryMetadata = emptyMetadata();
  private applied = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly backend: KubeDiscoveryBackend,
    private readonly crName: string,
  ) {
    this.id = kubeInstanceId(crName);
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  create(key: string, value: string): Promise<void> {
    return this.serialized(async () => {
      const slot = metadataSlot(key);
      if (!slot) throw new Error(`kubernetes discovery has no place for ${key}`);
      const entries = this.data[slot.map];
      if (slot.path in entries) throw new KeyExistsError(key);
      entries[slot.path] = JSON.parse(value);
      try {
        await this.backend.apply(this.crName, this.data);
        this.applied = true;
      } catch (err) {
        delete entries[slot.path];
        throw err;
      }
    });
  }

  delete(key: string): Promise<void> {
    return this.serialized(async () => {
      const slot = metadataSlot(key);
      if (!slot || !(slot.path in this.data[slot.map])) return;
      const value = this.data[slot.map][slot.path];
      delete this.data[slot.map][slot.path];
      try {
        await this.backend.apply(this.crName, this.data);
      } catch (err) {
        this.data[slot.map][slot.path] = value;
        throw err;
      }
    });
  }

  /** Deletes the CR, so readers drop this worker before the process exits. */
  revoke(): Promise<void> {
    return this.serialized(async () => {
      this.data = emptyMetadata();
      if (!this.applied) return;
      await this.backend.deleteMetadata(this.crName);
      this.applied = false;
    });
  }

  onLost(): void {
    // Nothing to lose: the CR lives as long as the pod owning it (Kubernetes deletes it with the pod).
  }
}

/** The shared watch of CRs and EndpointSlices; each `watch(prefix)` sees its part of the joined view. */
class KubeReader {
  private readonly routable = new RoutableWorkers();
  private readonly views = new Set<{ prefix: string; view: WatchedSet }>();
  private snapshot = new Map<string, string>();
  private pending = false;
  readonly slices: Reflector<EndpointSliceLike>;
  readonly crs: Reflector<WorkerMetadataLike>;

  constructor(backend: KubeDiscoveryBackend, kc: KubeConfig, namespace: string, opts: KubeBackendOptions) {
    const watch = new Watch(kc);
    const onChange = (): void => this.changed();
    const errorsOf = (what: string) => {
      const plane = opts.connection?.(`the Kubernetes API at ${backend.server} (${what} watch, namespace ${namespace})`);
      if (plane) return { onError: (err: Error) => plane.lost(describe(err)), onRecovered: () => plane.restored() };
      return {
        onError: (err: Error) => opts.logger?.warn({ server: backend.server, namespace, err: describe(err) }, `kubernetes discovery: ${what} watch failed; retrying`),
        onRecovered: () => opts.logger?.info({ namespace }, `kubernetes discovery: ${what} watch resumed`),
      };
    };
    const custom = kc.makeApiClient(CustomObjectsApi);
    const discovery = kc.makeApiClient(DiscoveryV1Api);
    this.crs = new Reflector<WorkerMetadataLike>({
      path: `/apis/${DWM.group}/${DWM.version}/namespaces/${namespace}/${DWM.plural}`,
      watch,
      onChange,
      ...errorsOf('DynamoWorkerMetadata'),
      list: async () => {
        const res = (await custom.listNamespacedCustomObject({ group: DWM.group, version: DWM.version, namespace, plural: DWM.plural })) as {
          items?: WorkerMetadataLike[];
          metadata?: { resourceVersion?: string };
        };
        return { items: res.items ?? [], resourceVersion: res.metadata?.resourceVersion ?? '' };
      },
    });
    this.slices = new Reflector<EndpointSliceLike>({
      path: `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
      labelSelector: DISCOVERY_LABEL_SELECTOR,
      watch,
      onChange,
      ...errorsOf('EndpointSlice'),
      list: async (): Promise<KubeList<EndpointSliceLike>> => {
        const res = await discovery.listNamespacedEndpointSlice({ namespace, labelSelector: DISCOVERY_LABEL_SELECTOR });
        return { items: res.items as EndpointSliceLike[], resourceVersion: res.metadata?.resourceVersion ?? '' };
      },
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.crs.start(), this.slices.start()]);
    this.rebuild();
  }

  stop(): void {
    this.crs.stop();
    this.slices.stop();
    this.views.clear();
  }

  subscribe(prefix: string, handler: StoreEventHandler): () => void {
    const entry = { prefix, view: new WatchedSet(handler) };
    entry.view.resync(this.under(prefix));
    this.views.add(entry);
    return () => this.views.delete(entry);
  }

  /** Changes arriving together (a relist, a burst of watch events) are joined once. */
  private changed(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.rebuild();
    });
  }

  private rebuild(): void {
    this.snapshot = this.routable.entries(this.slices.items.values(), this.crs.items.values());
    for (const { prefix, view } of this.views) view.resync(this.under(prefix));
  }

  private *under(prefix: string): Iterable<[string, string]> {
    for (const entry of this.snapshot) if (entry[0].startsWith(prefix)) yield entry;
  }
}

export class KubeDiscoveryBackend implements DiscoveryBackend {
  readonly name = 'kubernetes';
  readonly identity: PodIdentity;
  private readonly kc: KubeConfig;
  private readonly custom: CustomObjectsApi;
  private reader: Promise<KubeReader> | null = null;
  private leases = 0;

  constructor(private readonly opts: KubeBackendOptions) {
    this.identity = podIdentity({ env: opts.env, podinfoDir: opts.podinfoDir, warn: (m) => opts.logger?.warn({}, m) });
    this.kc = loadKubeConfig(opts.kubeconfig);
    this.custom = this.kc.makeApiClient(CustomObjectsApi);
  }

  /** The API server's URL, for messages. */
  get server(): string {
    return this.kc.getCurrentCluster()?.server ?? 'the Kubernetes API';
  }

  /**
   * The first instance of a process is named like its pod (upstream's CR name and instance id);
   * further instances in the same process (`--num-workers`) get `<pod>-<n>`, owned by the same pod.
   */
  async grantLease(): Promise<Lease> {
    const n = this.leases++;
    return new KubeLease(this, n === 0 ? this.identity.podName : `${this.identity.podName}-${n}`);
  }

  async watch(prefix: string, handler: StoreEventHandler): Promise<() => void> {
    if (!this.reader) {
      const reader = new KubeReader(this, this.kc, this.identity.namespace, this.opts);
      this.reader = reader.start().then(
        () => reader,
        (err: unknown) => {
          reader.stop();
          this.reader = null;
          throw new ServiceUnreachableError('the Kubernetes API', `${this.server} (namespace ${this.identity.namespace})`, describe(err), kubeFix(err));
        },
      );
    }
    return (await this.reader).subscribe(prefix, handler);
  }

  /** @internal server-side apply of the whole CR. */
  async apply(crName: string, data: DiscoveryMetadata): Promise<void> {
    const { namespace, podName, podUid } = this.identity;
    const body = workerMetadataObject(crName, namespace, { podName, podUid }, data);
    try {
      await this.custom.patchNamespacedCustomObject(
        { group: DWM.group, version: DWM.version, namespace, plural: DWM.plural, name: crName, body, fieldManager: FIELD_MANAGER, force: true },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
    } catch (err) {
      throw new ServiceUnreachableError('the Kubernetes API', this.server, `applying ${DWM.kind} ${namespace}/${crName}: ${describe(err)}`, kubeFix(err));
    }
  }

  /** @internal deletes a CR; one already gone is fine. */
  async deleteMetadata(crName: string): Promise<void> {
    const { namespace } = this.identity;
    try {
      await this.custom.deleteNamespacedCustomObject({ group: DWM.group, version: DWM.version, namespace, plural: DWM.plural, name: crName });
    } catch (err) {
      if ((err as { code?: unknown }).code === 404) return;
      throw new ServiceUnreachableError('the Kubernetes API', this.server, `deleting ${DWM.kind} ${namespace}/${crName}: ${describe(err)}`, kubeFix(err));
    }
  }

  async close(): Promise<void> {
    const reader = this.reader;
    this.reader = null;
    (await reader?.catch(() => null))?.stop();
  }
}

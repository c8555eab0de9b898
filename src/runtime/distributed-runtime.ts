// The worker API: DistributedRuntime → namespace → component → endpoint, as upstream's runtime.
// A runtime holds one lease (its instance id); siblings share the connections of their parent but
// hold leases of their own, so one process can host several instances.
import { UnavailableError } from '../protocols/index.js';
import {
  DISCOVERY_BACKENDS,
  DISCOVERY_REACH,
  encodeEndpointInstance,
  encodeModelRecord,
  instanceKey,
  modelKey,
  type DiscoveryBackend,
  type DiscoveryBackendName,
  type EndpointId,
  type Lease,
} from './discovery/index.js';
import { EVENT_PLANES, defaultEventPlane, type EventPlane, type EventPlaneDeps, type EventPlaneName } from './event-plane/index.js';
import { withFileChecksums } from './card-checksums.js';
import { closeNatsConnections, natsConnection, watchNatsConnection, type NatsTls } from './nats-connection.js';
import { PlaneStatus } from './plane-status.js';
import type { PartMaker } from './part-table.js';
import {
  listenHosts,
  MultiTransportClient,
  REQUEST_PLANE_SERVERS,
  type EndpointHandler,
  type ListenHosts,
  type RequestPlaneClient,
  type RequestPlaneDeps,
  type RequestPlaneName,
  type RequestPlaneServer,
  type TcpTls,
} from './request-plane/index.js';

export interface RuntimeLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RuntimeOptions {
  discovery: DiscoveryBackendName;
  requestPlane: RequestPlaneName;
  /** Unset: upstream's default for the discovery backend. */
  eventPlane?: EventPlaneName;
  /** `ETCD_ENDPOINTS`. */
  etcdEndpoints: string[];
  /** `NATS_SERVER`. */
  natsServer: string;
  /** `DYN_FILE_KV`. */
  fileKvRoot?: string;
  /**
   * mem discovery and the inproc event plane: runtimes with the same scope in one process see each
   * other (default `default`); `serve` takes a scope of its own so two in one process stay apart.
   */
  memScope?: string;
  /** kubernetes discovery: POD_NAME, POD_UID, POD_NAMESPACE. */
  podEnv?: Record<string, string | undefined>;
  /** kubernetes discovery: `KUBECONFIG`. */
  kubeconfig?: string;
  /** Upstream: 10 s. */
  leaseTtlSecs: number;
  /** `DYN_TCP_MAX_MESSAGE_SIZE`. */
  tcpMaxMessageSize: number;
  /**
   * The host other processes dial for this one (`DYN_TCP_RPC_HOST`); unset: loopback with a
   * single-host discovery backend (mem, file), else the first IPv4 address.
   */
  advertiseHost?: string;
  /**
   * Where this process's TCP listeners bind (request plane, response streams, ZMQ events):
   * `DYN_TCP_RPC_HOST` when set; unset: loopback with a single-host discovery backend, all
   * interfaces with a cluster one.
   */
  bindHost?: string;
  /** TLS for the TCP request plane and its response streams (--tcp-tls-*). */
  tcpTls?: TcpTls;
  /** TLS for every NATS connection (--nats-tls-*). */
  natsTls?: NatsTls;
  /** How long a worker shutting down lets in-flight requests run (DYN_GRACEFUL_SHUTDOWN_GRACE_PERIOD_SECS; upstream: 5 s). */
  shutdownGraceMs?: number;
  logger?: RuntimeLogger;
  /**
   * Called if the lease is lost for good (etcd unreachable past its TTL), for a process that exits
   * then (workers). Without it an expired etcd lease is granted again under its id with its keys.
   */
  onLeaseLost?: (err: Error) => void;
}

function eventPlaneOf(opts: RuntimeOptions): EventPlaneName {
  return opts.eventPlane ?? defaultEventPlane(opts.discovery);
}

function usesNats(opts: RuntimeOptions): boolean {
  return opts.requestPlane === 'nats' || eventPlaneOf(opts) === 'nats';
}

/** The planes that run over NATS report its losses and returns; returns the function that stops them. */
function watchNats(opts: RuntimeOptions, planes: PlaneStatus): () => void {
  const what = `NATS at ${opts.natsServer}`;
  const stops = [
    ...(eventPlaneOf(opts) === 'nats' ? [watchNatsConnection(opts.natsServer, opts.natsTls, planes.connection('events', what))] : []),
    ...(opts.requestPlane === 'nats' ? [watchNatsConnection(opts.natsServer, opts.natsTls, planes.connection('requests', what))] : []),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** Model card options, as upstream register_model() takes them. */
export interface RegisterModelOptions {
  /** Bit-flag names, e.g. ['Chat', 'Completions']. */
  modelType: string[];
  modelInput: 'Tokens' | 'Text' | 'Tensor';
  /** LoRA adapters: appended to the key. */
  modelSuffix?: string;
}

/** The makers of the planes a runtime's options chose; each plane is made on first use. */
interface PlaneMakers {
  requestServer: PartMaker<RequestPlaneDeps, RequestPlaneServer>;
  events: PartMaker<EventPlaneDeps, EventPlane>;
}

/** Connections shared by a runtime and its siblings. */
class Shared {
  private requestServer: RequestPlaneServer | null = null;
  private client: RequestPlaneClient | null = null;
  private eventPlane: EventPlane | null = null;
  users = 0;
  private readonly hosts: ListenHosts;

  constructor(
    readonly opts: RuntimeOptions,
    readonly backend: DiscoveryBackend,
    readonly firstLease: () => Promise<Lease>,
    private readonly makers: PlaneMakers,
    readonly planes: PlaneStatus,
    private readonly unwatch: () => void,
  ) {
    this.hosts = listenHosts(DISCOVERY_REACH[opts.discovery], opts);
  }

  server(): RequestPlaneServer {
    if (!this.requestServer) {
      const { tcpMaxMessageSize, natsServer, logger, tcpTls, natsTls, shutdownGraceMs } = this.opts;
      this.requestServer = this.makers.requestServer({ maxMessageSize: tcpMaxMessageSize, ...this.hosts, natsServer, tcpTls, natsTls, logger, shutdownGraceMs });
    }
    return this.requestServer;
  }

  requestClient(): RequestPlaneClient {
    this.client ??= new MultiTransportClient({
      natsServer: this.opts.natsServer,
      maxMessageSize: this.opts.tcpMaxMessageSize,
      ...this.hosts,
      tcpTls: this.opts.tcpTls,
      natsTls: this.opts.natsTls,
    });
    return this.client;
  }

  events(): EventPlane {
    this.eventPlane ??= this.makers.events({
      natsServer: this.opts.natsServer,
      natsTls: this.opts.natsTls,
      backend: this.backend,
      lease: this.firstLease,
      ...this.hosts,
      memScope: this.opts.memScope,
      planes: this.planes,
    });
    return this.eventPlane;
  }

  async close(): Promise<void> {
    this.unwatch();
    await this.requestServer?.close();
    await this.client?.close();
    await this.eventPlane?.close();
    await this.backend.close();
    await closeNatsConnections();
  }
}

export class DistributedRuntime {
  private readonly served: EndpointId[] = [];
  private stopped = false;

  private constructor(
    private readonly shared: Shared,
    private readonly lease: Lease,
  ) {
    shared.users++;
    lease.onLost((err) => {
      shared.opts.logger?.error({ instance: this.instanceIdHex, err: err.message }, 'discovery lease lost');
      shared.opts.onLeaseLost?.(err);
    });
  }

  /** Connects to discovery and takes a lease: the runtime's instance id. */
  static async create(opts: RuntimeOptions): Promise<DistributedRuntime> {
    const [makeBackend, requestServer, events] = await Promise.all([
      DISCOVERY_BACKENDS[opts.discovery](),
      REQUEST_PLANE_SERVERS[opts.requestPlane](),
      EVENT_PLANES[eventPlaneOf(opts)](),
    ]);
    const planes = new PlaneStatus(opts.logger);
    const backend = makeBackend({
      etcdEndpoints: opts.etcdEndpoints,
      fileKvRoot: opts.fileKvRoot,
      leaseTtlSecs: opts.leaseTtlSecs,
      memScope: opts.memScope,
      env: opts.podEnv,
      kubeconfig: opts.kubeconfig,
      logger: opts.logger,
      planes,
      // A process that does not exit on a lost lease (a frontend) gets it back instead.
      regrantExpiredLeases: !opts.onLeaseLost,
    });
    let first: DistributedRuntime | null = null;
    const unwatch = watchNats(opts, planes);
    const shared = new Shared(opts, backend, async () => first!.lease, { requestServer, events }, planes, unwatch);
    let lease: Lease | undefined;
    try {
      lease = await backend.grantLease();
      // NATS is checked at startup too, so an unreachable server is reported now, not on first use.
      if (usesNats(opts)) await natsConnection(opts.natsServer, opts.natsTls);
    } catch (err) {
      // Nothing may keep the process alive after a failed start (the etcd client's channels).
      unwatch();
      await lease?.revoke().catch(() => undefined);
      await backend.close().catch(() => undefined);
      await closeNatsConnections();
      throw err;
    }
    first = new DistributedRuntime(shared, lease);
    return first;
  }

  /** Another instance in this process: same connections, its own lease and instance id. */
  async sibling(): Promise<DistributedRuntime> {
    return new DistributedRuntime(this.shared, await this.shared.backend.grantLease());
  }

  get instanceId(): bigint {
    return this.lease.id;
  }

  get instanceIdHex(): string {
    return this.lease.id.toString(16);
  }

  get discovery(): DiscoveryBackend {
    return this.shared.backend;
  }

  /** Loss and return of the planes this process depends on (shared with its siblings). */
  get planes(): PlaneStatus {
    return this.shared.planes;
  }

  /** The event plane (KV events, metrics). */
  get events(): EventPlane {
    return this.shared.events();
  }

  /** The frontend side of the request plane. */
  get requestClient(): RequestPlaneClient {
    return this.shared.requestClient();
  }

  namespace(name: string): Namespace {
    return new Namespace(this, name);
  }

  /** @internal used by Endpoint */
  async serve(ep: EndpointId, handler: EndpointHandler): Promise<void> {
    if (this.stopped) throw new UnavailableError('runtime is shut down');
    const server = this.shared.server();
    const transport = await server.serve(ep, this.lease.id, handler);
    this.served.push(ep);
    await this.lease.create(
      instanceKey(ep, this.lease.id),
      encodeEndpointInstance({ ...ep, instanceId: this.lease.id, transport, requestPlaneCodec: 'json' }),
    );
    this.shared.opts.logger?.info({ endpoint: `${ep.namespace}.${ep.component}.${ep.endpoint}`, instance: this.instanceIdHex, transport }, 'endpoint registered');
  }

  /** @internal used by Endpoint; the card's files get their BLAKE3 checksums, as upstream's do. */
  async registerModel(ep: EndpointId, cardJson: Record<string, unknown>, opts: RegisterModelOptions): Promise<void> {
    const card = await withFileChecksums({ ...cardJson, model_type: opts.modelType.join(' | '), model_input: opts.modelInput });
    await this.lease.create(
      modelKey(ep, this.lease.id, opts.modelSuffix),
      encodeModelRecord({ ...ep, instanceId: this.lease.id, cardJson: card, modelSuffix: opts.modelSuffix }),
    );
  }

  /**
   * Clean shutdown, as upstream: remove this instance's keys and lease, stop taking work; the last
   * runtime of a process also closes the shared connections.
   */
  async shutdown(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.lease.revoke().catch((err: Error) => this.shared.opts.logger?.warn({ err: err.message }, 'cannot revoke lease'));
    for (const ep of this.served) this.shared.server().unserve(ep, this.lease.id);
    if (--this.shared.users === 0) await this.shared.close();
  }
}

export class Namespace {
  constructor(
    private readonly runtime: DistributedRuntime,
    readonly name: string,
  ) {}

  component(name: string): Component {
    return new Component(this.runtime, this.name, name);
  }
}

export class Component {
  constructor(
    private readonly runtime: DistributedRuntime,
    readonly namespace: string,
    readonly name: string,
  ) {}

  endpoint(name: string): Endpoint {
    return new Endpoint(this.runtime, { namespace: this.namespace, component: this.name, endpoint: name });
  }
}

export class Endpoint {
  constructor(
    private readonly runtime: DistributedRuntime,
    readonly id: EndpointId,
  ) {}

  /** Makes `handler` reachable on the request plane and registers this instance in discovery. */
  serveEndpoint(handler: EndpointHandler): Promise<void> {
    return this.runtime.serve(this.id, handler);
  }

  /** Publishes a model card for this endpoint (upstream `register_model()`). */
  registerModel(cardJson: Record<string, unknown>, opts: RegisterModelOptions): Promise<void> {
    return this.runtime.registerModel(this.id, cardJson, opts);
  }
}

// The KServe gRPC listener: grpc-js server options (TLS, message size, keepalive, HTTP/2 windows),
// the access interceptor (API keys, admin switch) and the services it hosts.

import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import type { Http2Server, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { Logger, MetricsRegistry } from '../../observability/index.js';
import { accessInterceptor, type GrpcAccess } from './auth.js';
import { GrpcMetrics } from './grpc-metrics.js';
import { healthHandlers } from './health.js';
import type { KserveCore, KserveModels } from '../../kserve/index.js';
import { loadProtos } from './proto.js';
import { InferenceService } from './service.js';
import { withTolerantDecoding } from './tolerant-decoding.js';

export interface KserveGrpcOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** PEM contents; with `ca`, clients must present a certificate it signed (mTLS). */
  tls?: { cert: Buffer; key: Buffer; ca?: Buffer };
  /** API keys and the admin switch; absent: every call open, admin calls included (library use). */
  access?: GrpcAccess;
  /** Max receive and send message size in bytes (grpc-js default 4 MiB receive, unlimited send). */
  maxMessageSize?: number;
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
  /** HTTP/2 connection-level flow-control window, bytes. */
  connectionWindowSize?: number;
  /** HTTP/2 per-stream flow-control window, bytes. */
  streamWindowSize?: number;
  /** Prefix of the `x-dynamo-meta-*` metadata passed through to engines (DYN_METADATA_HEADER). */
  metadataPrefix?: string;
  logger: Logger;
  /** grpc_server_* metrics go here; request metrics come from the request events of the core's scope. */
  metrics: MetricsRegistry;
}

export class KserveGrpcServer {
  readonly server: grpc.Server;
  readonly inference: InferenceService;
  readonly models: KserveModels;

  constructor(
    private readonly opts: KserveGrpcOptions,
    core: KserveCore,
  ) {
    this.models = core.models;
    const options: grpc.ServerOptions = {};
    if (opts.maxMessageSize !== undefined) {
      options['grpc.max_receive_message_length'] = opts.maxMessageSize;
      options['grpc.max_send_message_length'] = opts.maxMessageSize;
    }
    if (opts.keepaliveTimeMs !== undefined) options['grpc.keepalive_time_ms'] = opts.keepaliveTimeMs;
    if (opts.keepaliveTimeoutMs !== undefined) options['grpc.keepalive_timeout_ms'] = opts.keepaliveTimeoutMs;
    const metrics = new GrpcMetrics(opts.metrics);
    if (opts.access) options.interceptors = [accessInterceptor(opts.access, metrics)];
    this.server = new grpc.Server(options);
    this.applyStreamWindow();

    const protos = loadProtos();
    this.inference = new InferenceService(core, opts.metadataPrefix?.toLowerCase());
    const { logger } = opts;
    this.server.addService(withTolerantDecoding(protos.inference), this.inference.handlers({ service: 'inference.GRPCInferenceService', metrics, logger }));
    // Health stays open without a key so orchestrator probes work (the interceptor lets it through).
    this.server.addService(withTolerantDecoding(protos.health), healthHandlers({ service: 'grpc.health.v1.Health', metrics, logger }, core.models));
    // grpc.reflection.v1 and v1alpha, open like health so grpcurl/grpc_cli can discover the API.
    new ReflectionService(protos.packageDefinition).addToServer(this.server);
  }

  /** Binds and starts; resolves to the bound port. */
  async listen(): Promise<number> {
    const { opts } = this;
    const address = opts.host.includes(':') ? `[${opts.host}]:${opts.port}` : `${opts.host}:${opts.port}`;
    const port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(address, this.credentials(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    this.tune();
    return port;
  }

  /**
   * Serves connections another process accepted (a frontend pool's primary hands them over) instead
   * of binding: each socket given to the returned function is served as if accepted here.
   */
  takeConnections(): (socket: Socket) => void {
    const injector = this.server.createConnectionInjector(this.credentials());
    this.tune();
    return (socket) => injector.injectConnection(socket);
  }

  private credentials(): grpc.ServerCredentials {
    const { tls } = this.opts;
    return tls
      ? grpc.ServerCredentials.createSsl(tls.ca ?? null, [{ cert_chain: tls.cert, private_key: tls.key }], tls.ca !== undefined)
      : grpc.ServerCredentials.createInsecure();
  }

  /** Finishes in-flight calls, then closes (forcibly after `graceMs`). */
  async shutdown(graceMs = 5000): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  // grpc-js has no options for the HTTP/2 windows: the stream window is an HTTP/2 setting of the
  // server it creates, the connection window is set per session. Both reach into grpc-js internals.
  private applyStreamWindow(): void {
    if (this.opts.streamWindowSize === undefined) return;
    const internals = this.server as unknown as { commonServerOptions: { settings?: Record<string, unknown> } };
    internals.commonServerOptions.settings = { ...internals.commonServerOptions.settings, initialWindowSize: this.opts.streamWindowSize };
  }

  /** Once its HTTP/2 servers exist: the connection window on each, and the tuning logged. */
  private tune(): void {
    const { connectionWindowSize, streamWindowSize, logger } = this.opts;
    this.applyConnectionWindow();
    if (connectionWindowSize !== undefined || streamWindowSize !== undefined) {
      logger.info(`gRPC tuning: connection_window=${connectionWindowSize ?? 'default'}, stream_window=${streamWindowSize ?? 'default'}`);
    }
  }

  private applyConnectionWindow(): void {
    const size = this.opts.connectionWindowSize;
    if (size === undefined) return;
    const internals = this.server as unknown as { http2Servers: Map<Http2Server, unknown> };
    for (const http2Server of internals.http2Servers.keys()) {
      http2Server.on('session', (session: Http2Session) => session.setLocalWindowSize(size));
    }
  }
}

import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import type { ModelManager } from '../../models/index.js';
import { HTTP_ROUTE_NAMES, type HttpRouteName } from '../../protocols/index.js';
import { accessGate } from './access-hook.js';
import { DEFAULT_UPLOAD_TIMEOUTS } from './body/index.js';
import { mountRoute, type RouteContext } from './http-route.js';
import type { PerfLog } from './model-route/index.js';
import { FIXED_ROUTES, ROUTES } from './routes.js';
import { createHttpServer } from './server.js';
import type { HttpServiceOptions } from './service-options.js';
import { HttpServiceState } from './service-state.js';

/** The OpenAI-compatible HTTP service: routes, lifecycle and graceful shutdown. */
export class HttpService {
  readonly state: HttpServiceState;
  readonly app: FastifyInstance;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly opts: HttpServiceOptions,
    models: ModelManager,
  ) {
    this.state = new HttpServiceState(opts.overloadStatus);
    // The access check runs in the server's hook: it guards every route, the API description's included.
    const gate = opts.access && accessGate(opts.paths, opts.access, opts.overloadStatus);
    this.app = createHttpServer({ bodyLimitMb: opts.bodyLimitMb, parseThreadKb: opts.parseThreadKb, requestLimits: opts.requestLimits, uploadTimeouts: opts.uploadTimeouts ?? DEFAULT_UPLOAD_TIMEOUTS, overloadStatus: opts.overloadStatus, logger: opts.logger, tls: opts.tls, gate }, this.state);
    const ctx = this.routeContext(models);
    const mount = (app: FastifyInstance, name: HttpRouteName): void => mountRoute(app, opts.paths[name], ROUTES[name], ctx);
    const collecting = (name: HttpRouteName): boolean => ROUTES[name].collectsRoutes === true;
    for (const name of HTTP_ROUTE_NAMES.filter(collecting)) mount(this.app, name);
    // The others go in once the collecting plugins have loaded, so that the API description sees every one of them.
    void this.app.register(async (scope) => {
      for (const name of HTTP_ROUTE_NAMES.filter((n) => !collecting(n))) mount(scope, name);
      for (const { path, route } of FIXED_ROUTES) mountRoute(scope, path, route, ctx);
    });
  }

  private routeContext(models: ModelManager): RouteContext {
    const opts = this.opts;
    const perfLog: PerfLog | undefined = opts.debugPerf ? (timings, message) => opts.logger.info(timings, message) : undefined;
    return {
      state: this.state,
      models,
      requestScope: opts.requestScope,
      options: opts,
      generation: { requestScope: opts.requestScope, sseKeepAliveMs: opts.sseKeepAliveMs, preCommitErrorPeekMs: opts.preCommitErrorPeekMs, perfLog },
    };
  }

  /** Start listening; resolves to the bound port (useful with port 0). */
  async listen(): Promise<number> {
    await this.app.listen({ host: this.opts.host, port: this.opts.port });
    const addr = this.app.server.address();
    return typeof addr === 'object' && addr ? addr.port : this.opts.port;
  }

  /**
   * Serves connections another process accepted (a frontend pool's primary hands them over) instead
   * of listening: each socket given to the returned function is served as if accepted here.
   */
  async takeConnections(): Promise<(socket: Socket) => void> {
    await this.app.ready();
    // Node tracks a server's connections (header and request timeouts, closing them on shutdown)
    // from its 'listening' event: a server that never listens raises it itself.
    this.app.server.emit('listening');
    return (socket) => this.app.server.emit('connection', socket);
  }

  /** Readiness first: `/health` answers 503 from now on, so load balancers stop sending work. */
  beginDraining(): void {
    if (this.state.phase === 'serving') this.state.phase = 'draining';
  }

  /**
   * Drain, then stop: new requests get 503 and `/health` turns 503 while in-flight requests
   * finish (up to the graceful timeout); then `/live` turns 503 and the listener closes.
   */
  shutdown(): Promise<void> {
    this.closing ??= this.drainAndClose();
    return this.closing;
  }

  private async drainAndClose(): Promise<void> {
    this.beginDraining();
    const deadline = Date.now() + this.opts.gracefulShutdownSecs * 1000;
    while (this.state.inflight > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    this.state.phase = 'stopping';
    // Dashboard streams never end by themselves: end them cleanly before the sockets go.
    this.opts.dashboard?.close();
    this.app.server.closeAllConnections?.();
    await this.app.close();
  }
}

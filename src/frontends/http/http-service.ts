import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { DashboardFeed, MetricsRegistry } from '../../observability/index.js';
import type { RequestLimits } from '../../pipeline/index.js';
import type { ModelManager } from '../../models/index.js';
import type { KserveCore } from '../../kserve/index.js';
import type { HttpPaths, RequestScope } from '../../protocols/index.js';
import { registerAccessHook, type AccessOptions } from './access-hook.js';
import { registerAdminRoutes } from './service/index.js';
import { registerMessagesRoutes } from './anthropic/index.js';
import { registerBusyThresholdRoute } from './service/index.js';
import { registerDashboardRoutes } from './dashboard/index.js';
import { EMBEDDINGS_ROUTE } from './openai/index.js';
import { EMBEDDINGS_DOC, IMAGES_DOC, VIDEOS_DOC, VIDEOS_STREAM_DOC } from './openai/index.js';
import { IMAGES_ROUTE, VIDEOS_ROUTE, VIDEOS_STREAM_ROUTE } from './openai/index.js';
import { modelRouteHandler } from './model-route/index.js';
import type { ReasoningField } from './openai/index.js';
import { registerOpenAiRoutes } from './openai/index.js';
import type { PerfLog } from './model-route/index.js';
import { registerOpenApi } from './openapi/index.js';
import { documented, type RouteDoc } from './openapi/index.js';
import { registerResponsesRoute } from './responses/index.js';
import { createHttpServer, postRoute } from './server.js';
import { DEFAULT_UPLOAD_TIMEOUTS, type UploadTimeouts } from './body/index.js';
import { HttpServiceState } from './service-state.js';
import { registerTritonRoutes } from './triton/index.js';

export interface HttpServiceOptions {
  host: string;
  port: number;
  bodyLimitMb: number;
  /** Bodies of at least this many KiB are parsed off the event loop; the option table's default when absent. */
  parseThreadKb?: number;
  /** Request size limits, checked on the parse thread for big bodies; the option table's defaults when absent. */
  requestLimits?: RequestLimits;
  /** Body and upload timeouts; the option table's defaults when absent. */
  uploadTimeouts?: UploadTimeouts;
  overloadStatus: number;
  gracefulShutdownSecs: number;
  forceIncludeUsage: boolean;
  /** DYN_REASONING_FIELD_NAME (default reasoning_content). */
  reasoningField?: ReasoningField;
  /** DYN_ENABLE_STREAMING_REASONING_DISPATCH. */
  reasoningDispatch?: boolean;
  /** DYN_ENABLE_STREAMING_TOOL_DISPATCH. */
  toolCallDispatch?: boolean;
  contextWindow?: number;
  maxOutputTokens?: number;
  paths: HttpPaths;
  logger: Logger;
  sseKeepAliveMs?: number;
  preCommitErrorPeekMs?: number;
  /** --dyn-debug-perf: log each generating request's preprocessing timings at info. */
  debugPerf?: boolean;
  /** The process's registry: both frontends share it, `/metrics` renders it. */
  metrics: MetricsRegistry;
  /** The scope of this frontend's request events (whoever created it counts them into `metrics`). */
  requestScope: RequestScope;
  /** --enable-anthropic-api: serve the Messages routes (absent: 404). */
  anthropicApi?: { stripPreamble: boolean };
  /** DYN_DISABLE_FRONTEND_ADMIN_API: leave out `/busy_threshold` (it answers 404). */
  disableAdminApi?: boolean;
  /** API keys and the admin switch; absent: every route open, admin routes included (library use). */
  access?: AccessOptions;
  /** HTTPS with these PEM contents; with `ca`, clients must present a certificate it signed (mTLS). */
  tls?: HttpTls;
  /** Serve the live dashboard from this feed (absent: the dashboard routes answer 404); closed on shutdown. */
  dashboard?: DashboardFeed;
  /** Shown as the API version in /openapi.json. */
  version: string;
  /** Serve Triton's HTTP/REST protocol (KServe v2) under /v2 over this KServe core (absent: /v2 answers 404). */
  kserve?: KserveCore;
}

export interface HttpTls {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

const METRICS_DOC: RouteDoc = {
  summary: 'Prometheus metrics',
  tag: 'Service',
  responses: { 200: { description: 'Prometheus text exposition', content: { 'text/plain': { type: 'string' } } } },
};

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
    this.app = createHttpServer({ bodyLimitMb: opts.bodyLimitMb, parseThreadKb: opts.parseThreadKb, requestLimits: opts.requestLimits, uploadTimeouts: opts.uploadTimeouts ?? DEFAULT_UPLOAD_TIMEOUTS, overloadStatus: opts.overloadStatus, logger: opts.logger, tls: opts.tls }, this.state);
    // Before any route: the hook then guards every route, the API description's included.
    if (opts.access) registerAccessHook(this.app, opts.paths, opts.access, opts.overloadStatus);
    registerOpenApi(this.app, { documentPath: opts.paths.openapi, docsPath: opts.paths.docs, version: opts.version });
    // Routes go in after the OpenAPI plugin has loaded, so the document sees every one of them.
    void this.app.register(async (scope) => this.registerRoutes(scope, models));
  }

  private registerRoutes(app: FastifyInstance, models: ModelManager): void {
    const opts = this.opts;
    const perfLog: PerfLog | undefined = opts.debugPerf ? (timings, message) => opts.logger.info(timings, message) : undefined;
    registerOpenAiRoutes(app, this.state, models, {
      chatPath: opts.paths.chat,
      completionsPath: opts.paths.completions,
      forceIncludeUsage: opts.forceIncludeUsage,
      reasoningField: opts.reasoningField ?? 'reasoning_content',
      reasoningDispatch: opts.reasoningDispatch ?? false,
      toolCallDispatch: opts.toolCallDispatch ?? false,
      requestScope: opts.requestScope,
      sseKeepAliveMs: opts.sseKeepAliveMs,
      preCommitErrorPeekMs: opts.preCommitErrorPeekMs,
      perfLog,
    });
    registerResponsesRoute(app, this.state, models, {
      responsesPath: opts.paths.responses,
      requestScope: opts.requestScope,
      sseKeepAliveMs: opts.sseKeepAliveMs,
      preCommitErrorPeekMs: opts.preCommitErrorPeekMs,
      perfLog,
    });
    if (opts.anthropicApi) {
      registerMessagesRoutes(app, this.state, models, {
        messagesPath: opts.paths.anthropic,
        stripPreamble: opts.anthropicApi.stripPreamble,
        bodyLimitMb: opts.bodyLimitMb,
        requestScope: opts.requestScope,
        sseKeepAliveMs: opts.sseKeepAliveMs,
        preCommitErrorPeekMs: opts.preCommitErrorPeekMs,
        perfLog,
        });
    }
    const context = { state: this.state, models, requestScope: opts.requestScope };
    postRoute(app, opts.paths.embeddings, modelRouteHandler(context, EMBEDDINGS_ROUTE), EMBEDDINGS_DOC);
    postRoute(app, opts.paths.images, modelRouteHandler(context, IMAGES_ROUTE), IMAGES_DOC);
    postRoute(app, opts.paths.videos, modelRouteHandler(context, VIDEOS_ROUTE), VIDEOS_DOC);
    postRoute(app, opts.paths.videosStream, modelRouteHandler(context, VIDEOS_STREAM_ROUTE), VIDEOS_STREAM_DOC);
    app.get(opts.paths.metrics, documented(METRICS_DOC), async (_req, reply) =>
      reply.header('content-type', opts.metrics.contentType).send(await opts.metrics.render()),
    );
    registerAdminRoutes(app, this.state, models, {
      modelsPath: opts.paths.models,
      healthPath: opts.paths.health,
      livePath: opts.paths.live,
      contextWindow: opts.contextWindow,
      maxOutputTokens: opts.maxOutputTokens,
    });
    if (!opts.disableAdminApi) registerBusyThresholdRoute(app, models, opts.paths.busyThreshold);
    if (opts.dashboard) registerDashboardRoutes(app, opts.paths.dashboard, opts.dashboard);
    if (opts.kserve) registerTritonRoutes(app, { core: opts.kserve, state: this.state, bodyLimitMb: opts.bodyLimitMb, sseKeepAliveMs: opts.sseKeepAliveMs });
  }

  /** Start listening; resolves to the bound port (useful with port 0). */
  async listen(): Promise<number> {
    await this.app.listen({ host: this.opts.host, port: this.opts.port });
    const addr = this.app.server.address();
    return typeof addr === 'object' && addr ? addr.port : this.opts.port;
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

// The HTTP service's settings: what launch/http-options.ts reads from the configuration, and what
// the routes read from their context.
import type { Logger } from 'pino';
import type { KserveCore } from '../../kserve/index.js';
import type { DashboardFeed, MetricsRegistry } from '../../observability/index.js';
import type { RequestLimits } from '../../pipeline/index.js';
import type { HttpPaths, PlaneStatusView, RequestScope } from '../../protocols/index.js';
import type { AccessOptions } from './access-hook.js';
import type { UploadTimeouts } from './body/index.js';
import type { ReasoningField } from './openai/index.js';
import type { ResponsesSocketOptions, ResponseStoreOptions } from './responses/index.js';

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
  /** DYN_ENABLE_RL: unary chat answers carry their token ids unless the request says `return_token_ids: false`. */
  rlTokenIds?: boolean;
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
  /** Where /v1/responses stores responses (--response-store and its bounds); absent: in memory, with the options' defaults. */
  responseStore?: ResponseStoreOptions;
  /** The bounds of a Responses WebSocket (message size, idle time); absent: the options' defaults. */
  responsesWebSocket?: ResponsesSocketOptions;
  /** Serve Triton's HTTP/REST protocol (KServe v2) under /v2 over this KServe core (absent: /v2 answers 404). */
  kserve?: KserveCore;
  /** The outages of the planes this process depends on, which /health reports (absent: none known). */
  planes?: PlaneStatusView;
}

export interface HttpTls {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

import { HTTP_ROUTE_NAMES, HTTP_ROUTES, type HttpRouteName } from '../../protocols/index.js';
import type { OptionSpec } from '../option-spec.js';

const URL_PATH = { regex: /^\/\S*$/, describe: "a URL path starting with '/'" } as const;

/**
 * The option that moves route `name`: `httpSvc<Setting>Path`, read from DYN_HTTP_SVC_<SETTING>_PATH
 * (and, for a variable upstream has, also from upstream's `_ENV` spelling of it).
 */
export function httpPathOption<N extends HttpRouteName>(name: N) {
  const { path, setting, what, upstream } = HTTP_ROUTES[name];
  const env = `DYN_HTTP_SVC_${setting.replace(/(?<=.)(?=[A-Z])/g, '_').toUpperCase()}_PATH`;
  return {
    key: `httpSvc${setting}Path`, env, type: 'string', pattern: URL_PATH, metavar: '<path>',
    ...(upstream ? { envAliases: [`${env}_ENV`] } : { envIsLocal: true }),
    group: 'HTTP Endpoint Paths', scope: 'frontend', built: true, default: path,
    help: `Path of the ${what} endpoint`,
  } as const;
}

export const httpOptions = [
  {
    key: 'httpHost', flag: 'http-host', env: 'DYN_HTTP_HOST', type: 'string', metavar: '<host>',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: '0.0.0.0',
    help: 'HTTP listen address',
  },
  {
    key: 'httpPort', flag: 'http-port', env: 'DYN_HTTP_PORT', type: 'int', min: 0, max: 65535, metavar: '<port>',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 8000,
    help: 'HTTP listen port (0 picks a free port)',
  },
  {
    key: 'tlsCertPath', flag: 'tls-cert-path', env: 'DYN_TLS_CERT_PATH', type: 'path', mustExist: true,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'TLS certificate (PEM) for HTTPS and the KServe gRPC listener; must be given together with --tls-key-path',
  },
  {
    key: 'tlsKeyPath', flag: 'tls-key-path', env: 'DYN_TLS_KEY_PATH', type: 'path', mustExist: true,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'TLS private key (PEM) for HTTPS and the KServe gRPC listener; must be given together with --tls-cert-path',
  },
  {
    key: 'tlsClientCaCertPath', flag: 'tls-client-ca-cert-path', env: 'DYN_TLS_CLIENT_CA_CERT_PATH', type: 'path', mustExist: true,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'CA bundle for verifying client certificates (mTLS, HTTP and gRPC); requires --tls-cert-path and --tls-key-path',
  },
  {
    key: 'httpWorkers', flag: 'http-workers', env: 'DYN_HTTP_WORKERS', envIsLocal: true, type: 'int', min: 1, metavar: '<n>',
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'Frontend processes sharing the HTTP (and gRPC) listening ports, each routing with the same view of the workers (KV events to each, active load shared by replica sync); default: 1 for serve (its engines run in-process), and for frontend 1 on up to 2 cores, else one per core less one; 1 serves from this one process',
  },
  {
    key: 'httpBodyLimitMb', env: 'DYN_HTTP_BODY_LIMIT_MB', type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 192,
    help: 'Maximum request body size in MB; larger bodies get 413',
  },
  {
    key: 'httpBodyParseThreadKb', env: 'DYN_HTTP_BODY_PARSE_THREAD_KB', envIsLocal: true, type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 1024,
    help: 'Request bodies of at least this many KiB are parsed as JSON on a worker thread, so other clients never wait behind the parse',
  },
  {
    key: 'httpBodyTimeoutSecs', env: 'DYN_HTTP_BODY_TIMEOUT_SECS', envIsLocal: true, type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 30,
    help: 'Answer 408 and close the connection when a request body stops arriving for this long',
  },
  {
    key: 'httpUploadTimeoutSecs', env: 'DYN_HTTP_UPLOAD_TIMEOUT_SECS', envIsLocal: true, type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 60,
    help: 'Answer 408 and close the connection when a request (headers and body) has not fully arrived this long after it began, however steadily it trickles; raise it for big uploads over slow links',
  },
  {
    key: 'maxRequestMessages', flag: 'max-request-messages', env: 'DYN_MAX_REQUEST_MESSAGES', envIsLocal: true, type: 'int', min: 1,
    metavar: '<n>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 4096,
    help: 'Most messages one chat request may carry (400 above it, before templating)',
  },
  {
    key: 'maxRequestTools', flag: 'max-request-tools', env: 'DYN_MAX_REQUEST_TOOLS', envIsLocal: true, type: 'int', min: 1,
    metavar: '<n>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 1536,
    help: 'Most tool definitions one request may carry (400 above it)',
  },
  {
    key: 'maxPromptChars', flag: 'max-prompt-chars', env: 'DYN_MAX_PROMPT_CHARS', envIsLocal: true, type: 'int', min: 1,
    metavar: '<n>', group: 'HTTP & Networking', scope: 'frontend', built: true, default: 4_000_000,
    help: 'Most characters of prompt text (message contents, completions prompts) one request may carry (400 above it, before tokenizing)',
  },
  {
    key: 'httpGracefulShutdownTimeoutSecs', env: 'DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS', type: 'int', min: 0,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 5,
    help: 'Seconds to wait for in-flight requests to finish on SIGTERM/SIGINT before closing',
  },
  {
    key: 'httpOverloadStatusCode', env: 'DYN_HTTP_OVERLOAD_STATUS_CODE', type: 'int', min: 100, max: 599,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 529,
    help: 'HTTP status returned when a request is rejected because all workers are overloaded',
  },
  {
    key: 'httpSseKeepAliveIntervalMs', env: 'DYN_HTTP_SSE_KEEP_ALIVE_INTERVAL_MS', type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'Send an SSE keep-alive comment at this interval while streaming (off when unset)',
  },
  {
    key: 'httpPreCommitErrorPeekMs', env: 'DYN_HTTP_PRE_COMMIT_ERROR_PEEK_MS', type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'Wait up to this long for the first stream event so an early error becomes a plain HTTP error (off when unset)',
  },
  {
    key: 'httpBackendStreamTimeoutSecs', env: 'DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS', type: 'int', min: 0,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 300,
    help: 'A worker stream silent this long is aborted and its worker taken out of routing as lost (the request may migrate); 0 waits forever',
  },
  {
    key: 'enableForceIncludeUsage', env: 'DYN_ENABLE_FORCE_INCLUDE_USAGE', type: 'bool',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: false,
    help: 'Always send the final usage chunk on streams, as if stream_options.include_usage were true',
  },
  {
    key: 'ignoreOpenaiFeUnsupportedFields', env: 'DYN_IGNORE_OPENAI_FE_UNSUPPORTED_FIELDS', type: 'bool',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: false,
    help: 'Accept unsupported OpenAI request fields silently instead of answering 400',
  },
  {
    key: 'contextWindow', env: 'DYN_CONTEXT_WINDOW', type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: "context_window reported by /v1/models (defaults to the model card's context length)",
  },
  {
    key: 'maxOutputTokens', env: 'DYN_MAX_OUTPUT_TOKENS', type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true,
    help: 'Upper limit for max_tokens (1048576 when unset); also reported by /v1/models',
  },
  {
    key: 'enableFrontendNvext', env: 'DYN_ENABLE_FRONTEND_NVEXT', type: 'bool',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: true,
    help: 'Read the nvext request extension (upstream\'s default); false ignores it entirely, as DYN_DISABLE_FRONTEND_NVEXT does',
  },
  {
    key: 'disableFrontendNvext', env: 'DYN_DISABLE_FRONTEND_NVEXT', type: 'bool',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: false,
    help: 'Ignore the nvext request extension entirely (the opt-out spelling of DYN_ENABLE_FRONTEND_NVEXT=false)',
  },
  {
    key: 'disableFrontendAdminApi', env: 'DYN_DISABLE_FRONTEND_ADMIN_API', type: 'bool',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: false,
    help: 'Remove the admin surface (the opt-out spelling of DYN_ENABLE_FRONTEND_ADMIN_API=false): HTTP 404, gRPC UNIMPLEMENTED',
  },
  {
    key: 'rejectMediaInputs', env: 'DYN_REJECT_MEDIA_INPUTS', type: 'list', metavar: '<image,video,audio>',
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: [],
    help: 'Media kinds (image, video, audio) rejected with 400 in chat messages',
  },
  {
    key: 'frontendFdLimitTarget', env: 'DYN_FRONTEND_FD_LIMIT_TARGET', type: 'int', min: 1,
    group: 'HTTP & Networking', scope: 'frontend', built: true, default: 8192,
    help: 'Raise the soft open-file limit toward this many descriptors at startup (never above the hard limit; Linux, with util-linux prlimit); what was reached is logged, and startup never fails for it',
  },
  // One path option per route of protocols/http-routes.ts.
  ...HTTP_ROUTE_NAMES.map(httpPathOption),
] as const satisfies readonly OptionSpec[];

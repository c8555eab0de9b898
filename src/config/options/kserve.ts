import type { OptionSpec } from '../option-spec.js';

/** Flags from the gRPC/KServe guide (seed 004) that upstream's frontend code does not define. */
const GUIDE_ONLY = ' (from the gRPC guide; upstream serves gRPC on --http-port)';

export const kserveOptions = [
  {
    key: 'kserveGrpcServer', flag: 'kserve-grpc-server', env: 'DYN_KSERVE_GRPC_SERVER', type: 'bool',
    group: 'KServe gRPC', scope: 'frontend', built: true, default: false,
    help: 'Serve the KServe v2 gRPC API (on --http-port) instead of the OpenAI HTTP API',
  },
  {
    key: 'grpcMetricsPort', flag: 'grpc-metrics-port', env: 'DYN_GRPC_METRICS_PORT', type: 'int', min: 1, max: 65535, metavar: '<port>',
    group: 'KServe gRPC', scope: 'frontend', built: true, default: 8788,
    help: 'Port of the side HTTP server with /metrics in KServe gRPC mode',
  },
  {
    key: 'grpcInitialConnectionWindowSize', env: 'DYN_GRPC_INITIAL_CONNECTION_WINDOW_SIZE', type: 'int', min: 1, max: 4294967295,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'HTTP/2 connection-level flow-control window in bytes (library default when unset)',
  },
  {
    key: 'grpcInitialStreamWindowSize', env: 'DYN_GRPC_INITIAL_STREAM_WINDOW_SIZE', type: 'int', min: 1, max: 4294967295,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'HTTP/2 per-stream flow-control window in bytes (library default when unset)',
  },
  {
    key: 'metadataHeader', env: 'DYN_METADATA_HEADER', type: 'string',
    group: 'KServe gRPC', scope: 'frontend', built: true, default: 'x-dynamo-meta-',
    help: 'Prefix of the gRPC metadata keys passed to engines as request metadata (prefix stripped; at most 64 entries, 64 KiB)',
  },
  {
    key: 'grpcPort', flag: 'grpc-port', env: 'DYN_GRPC_PORT', envIsLocal: true, type: 'int', min: 1, max: 65535, metavar: '<port>',
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'gRPC listen port: with it gRPC runs alongside the HTTP API (Triton 8000/8001 layout); without it --kserve-grpc-server serves gRPC on --http-port',
  },
  {
    key: 'grpcWorkers', flag: 'grpc-workers', env: 'DYNAMO_GRPC_WORKERS', type: 'int', min: 1,
    group: 'KServe gRPC', scope: 'frontend', built: true, metavar: '<n>',
    help: `Frontend processes serving gRPC on the shared port (default: as --http-workers); there are as many processes as the larger of the two, every one serves HTTP${GUIDE_ONLY}`,
  },
  {
    key: 'useTls', flag: 'use-tls', env: 'DYN_GRPC_USE_TLS', envIsLocal: true, type: 'bool',
    group: 'KServe gRPC', scope: 'frontend', built: true, default: false,
    help: `Serve gRPC over TLS with --cert-file and --key-file${GUIDE_ONLY}`,
  },
  {
    key: 'certFile', flag: 'cert-file', env: 'DYNAMO_TLS_CERT', type: 'path', mustExist: true,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: `TLS certificate for the gRPC listener${GUIDE_ONLY}`,
  },
  {
    key: 'keyFile', flag: 'key-file', env: 'DYNAMO_TLS_KEY', type: 'path', mustExist: true,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: `TLS private key for the gRPC listener${GUIDE_ONLY}`,
  },
  {
    key: 'kserveMode', flag: 'kserve-mode', env: 'DYN_KSERVE_MODE', envIsLocal: true, type: 'bool',
    group: 'KServe gRPC', scope: 'frontend', built: true, default: false,
    help: `Alias of --kserve-grpc-server${GUIDE_ONLY}`,
  },
  {
    key: 'maxMessageSize', flag: 'max-message-size', env: 'DYNAMO_MAX_MESSAGE_SIZE', type: 'int', min: 1,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: `Maximum gRPC message size in bytes${GUIDE_ONLY}`,
  },
  {
    key: 'grpcAuthToken', flag: 'grpc-auth-token', env: 'DYN_GRPC_AUTH_TOKEN', envIsLocal: true, type: 'string', metavar: '<token>', secret: true,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'One more key accepted on KServe gRPC calls only, beside --api-key: with it, every gRPC call but health and reflection needs `authorization: Bearer <key>` metadata (UNAUTHENTICATED otherwise)',
  },
  {
    key: 'grpcKeepaliveTimeMs', flag: 'grpc-keepalive-time-ms', env: 'DYN_GRPC_KEEPALIVE_TIME_MS', envIsLocal: true, type: 'int', min: 1,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'Interval of server keepalive pings on idle gRPC connections (grpc-js default when unset)',
  },
  {
    key: 'grpcKeepaliveTimeoutMs', flag: 'grpc-keepalive-timeout-ms', env: 'DYN_GRPC_KEEPALIVE_TIMEOUT_MS', envIsLocal: true, type: 'int', min: 1,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'How long to wait for a keepalive ping acknowledgement before closing the connection',
  },
  {
    key: 'modelRepository', flag: 'model-repository', env: 'DYN_MODEL_REPOSITORY', envIsLocal: true, type: 'path', mustExist: true,
    group: 'KServe gRPC', scope: 'frontend', built: true,
    help: 'Triton-layout model repository (<model>/config.pbtxt); its configs are served by ModelConfig/ModelMetadata and by /v2/models/<m>/config on HTTP',
  },
] as const satisfies readonly OptionSpec[];
